import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';

/** PGlite creates its database at the first start: seconds, more on a busy machine. */
export const STARTUP = { timeoutMs: 120_000 };

/** A token as the service's look: long, random, never seen before. */
export const newToken = (): string => `whk_${randomBytes(24).toString('hex')}`;

/** A site as the admin script adds it. */
export interface Site {
  id: string;
  profile: string;
  domain: string;
  token: string;
}

/** The envelope's `profile` for a site's own deliveries. */
export const profileOf = (site: Site) => ({ id: site.profile, domain: site.domain.toLowerCase() });

/** A copy of examples/multi-site with a folder beside it for its data, and its two commands. */
export interface MultiSiteCopy {
  starter: CopiedStarter;
  /** PORT, HOST and DATA_DIR (PGlite's folder, outside the copy). */
  env(): Record<string, string>;
  /** Runs `node admin.mjs <args>` to the end, with the token in SITE_TOKEN when given. */
  admin(args: string[], token?: string, more?: Record<string, string>): ReturnType<typeof runStarter>;
  /** `npm start` (or `command`) with the env and `more`, once it printed its URL. */
  start(more?: Record<string, string>, command?: [string, ...string[]]): Promise<RunningStarter>;
  /** A folder of its own under the data folder. */
  dir(name: string): string;
  remove(): Promise<void>;
}

/**
 * Copies examples/multi-site out of the repository and installs the packed package into it,
 * as its README has users do.
 *
 * @example
 * ```ts
 * const copy = await copyMultiSite();
 * await copy.admin(['add-site', 'site-a', '--profile', 'p', '--domain', 'a.example.com'], token);
 * ```
 */
export async function copyMultiSite(): Promise<MultiSiteCopy> {
  const starter = await copyStarter('multi-site');
  const outside = await mkdtemp(join(tmpdir(), 'multi-site-'));
  const env = () => ({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(outside, 'data') });
  return {
    starter,
    env,
    admin: (args, token, more = {}) =>
      runStarter(
        starter.dir,
        { ...env(), ...more, ...(token ? { SITE_TOKEN: token } : {}) },
        { command: ['node', 'admin.mjs', ...args], timeoutMs: 120_000 },
      ),
    start: (more = {}, command) => startStarter(starter.dir, { ...env(), ...more }, { ...STARTUP, command }),
    dir: (name) => join(outside, name),
    remove: async () => {
      await starter.remove();
      await rm(outside, { recursive: true, force: true });
    },
  };
}
