import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { childEnv } from './child-env.js';
import { packedPackage } from './packed-package.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** A starter copied out of the repository and installed. */
export interface CopiedStarter {
  /** The copied starter folder, `<temp>/<name>`. */
  dir: string;
  /** The packed tarball that `webhook-cms-receiver` was installed from. */
  tarball: string;
  /** Deletes the temporary folder. */
  remove(): Promise<void>;
}

/** Options of {@link copyStarter}. */
export interface CopyStarterOptions {
  /**
   * `all` (default): `npm install <tarball>` in the copy, which also installs the starter's own
   * dependencies from the registry (or npm's cache). `package-only`: install just the tarball
   * one folder up, where the copy resolves it, for a starter whose framework cannot be
   * installed here (Next.js); the starter's package.json is then not read at all.
   */
  install?: 'all' | 'package-only';
}

/**
 * Copies `examples/<name>` to a fresh folder outside the repository, as a user copies it
 * (without what its .gitignore names), and installs `webhook-cms-receiver` there from the
 * packed tarball, never from the repository. The starter's files are not changed: its
 * package.json keeps its version range, which the tarball's version satisfies.
 *
 * @example
 * ```ts
 * const starter = await copyStarter('hono-node');
 * onTestFinished(() => starter.remove());
 * const server = await startStarter(starter.dir, { WEBHOOK_TOKEN: token });
 * ```
 */
export async function copyStarter(name: string, options: CopyStarterOptions = {}): Promise<CopiedStarter> {
  const source = join(root, 'examples', name);
  const ignored = ['node_modules', ...(await gitignored(source))];
  const base = await realpath(await mkdtemp(join(tmpdir(), `starter-${name}-`)));
  const remove = () => rm(base, { recursive: true, force: true });
  try {
    const outside = relative(await realpath(root), base);
    if (!outside.startsWith('..') && !isAbsolute(outside))
      throw new Error(`The temporary folder ${base} is inside the repository; set TMPDIR to a folder outside it.`);
    const dir = join(base, name);
    await cp(source, dir, {
      recursive: true,
      filter: (path) =>
        !relative(source, path)
          .split(sep)
          .some((part) => ignored.includes(part)),
    });
    const tarball = await packedPackage();
    const installIn = options.install === 'package-only' ? base : dir;
    await npmInstall(installIn, tarball, name);
    return { dir, tarball, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function npmInstall(cwd: string, tarball: string, name: string): Promise<void> {
  // --no-save: package.json keeps "^x.y.z"; the tarball satisfies it, so npm takes it instead of the registry's.
  const args = ['install', tarball, '--no-save', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
  try {
    await run('npm', [...args, '--prefix', cwd], { cwd, env: childEnv(), maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `npm install in the copy of examples/${name} failed. Its framework comes from the npm registry or npm's cache: check that one of them is reachable.\n${`${stdout}${stderr}`.trim()}`,
    );
  }
}

/** Plain names from the starter's .gitignore (`content/`, `.env.local`): what a user would not copy. */
async function gitignored(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, '.gitignore'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => line.trim().replace(/^\/|\/$/g, ''))
    .filter((line) => line !== '' && !line.startsWith('#') && !/[*?[!/]/.test(line));
}
