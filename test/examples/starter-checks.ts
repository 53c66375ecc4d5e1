import { existsSync } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { articleSyncPayload, deliver, probeEndpoint } from 'webhook-cms-receiver/testing';
import type { CopiedStarter } from '../helpers/copy-starter.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Asserts what makes a starter survive the copy: its package.json asks for
 * `webhook-cms-receiver` by a caret range that the packed version satisfies (not `file:`),
 * and the package the copy resolves is a real install of that tarball, outside the repository,
 * with its built dist/.
 *
 * @example
 * ```ts
 * await expectInstalledFromTarball(starter);
 * ```
 */
export async function expectInstalledFromTarball(starter: CopiedStarter): Promise<void> {
  const manifest = JSON.parse(await readFile(join(starter.dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const range = manifest.dependencies?.['webhook-cms-receiver'] ?? '';
  const version = /^webhook-cms-receiver-(.+)\.tgz$/.exec(basename(starter.tarball))?.[1] ?? '';
  expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
  expect(satisfiesCaret(version, range), `${version} satisfies ${range}`).toBe(true);

  const resolved = createRequire(join(starter.dir, 'package.json')).resolve('webhook-cms-receiver/package.json');
  const installed = dirname(resolved);
  expect((await lstat(installed)).isSymbolicLink()).toBe(false);
  expect(relative(await realpath(root), await realpath(installed))).toMatch(/^\.\./);
  expect(JSON.parse(await readFile(resolved, 'utf8')).version).toBe(version);
  expect(existsSync(join(installed, 'dist', 'index.js'))).toBe(true);
}

/** npm's caret: same major (same minor below 1.0.0), and not older. */
function satisfiesCaret(version: string, range: string): boolean {
  const have = version.split('.').map(Number);
  const want = range.slice(1).split('.').map(Number);
  if (have.length !== 3 || have.some(Number.isNaN)) return false;
  const fixed = want[0] === 0 ? 2 : 1;
  for (let i = 0; i < fixed; i++) if (have[i] !== want[i]) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!;
  return true;
}

/**
 * Sends a running starter a wrongly signed, a tampered and a stale `article.sync`, and asserts
 * the answers the service expects: 401 `Invalid token`, 403 `Invalid signature`, 403 `Request
 * expired`. The service never retries these.
 *
 * @example
 * ```ts
 * await expectRefusals(server.url, token);
 * ```
 */
export async function expectRefusals(url: string, token: string): Promise<void> {
  const once = { token, maxAttempts: 1 };
  const refused = await Promise.all([
    deliver(url, { ...once, payload: articleSyncPayload(), wrongToken: true }),
    deliver(url, { ...once, payload: articleSyncPayload(), tamper: true }),
    deliver(url, { ...once, payload: articleSyncPayload(), staleBy: 600 }),
  ]);
  expect(refused.map(({ outcome, attempts }) => [outcome, attempts[0]?.status, attempts[0]?.body])).toEqual([
    ['refused', 401, { error: 'Invalid token' }],
    ['refused', 403, { error: 'Invalid signature' }],
    ['refused', 403, { error: 'Request expired' }],
  ]);
}

/**
 * Runs `probe --writes`, the conformance check users run against their own endpoint, against a
 * running starter and asserts that no row failed (a `warn` passes, as it does for the CLI).
 *
 * @example
 * ```ts
 * await expectProbePasses(server.url, token);
 * ```
 */
export async function expectProbePasses(url: string, token: string): Promise<void> {
  const result = await probeEndpoint(url, { token, writes: true });
  expect(result.rows.filter((row) => row.result === 'fail')).toEqual([]);
  expect(result.ok).toBe(true);
}
