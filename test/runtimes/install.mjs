import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const runtimesDir = fileURLToPath(new URL('.', import.meta.url));
export const rootDir = fileURLToPath(new URL('../..', import.meta.url));
const stampFile = join(runtimesDir, 'node_modules', '.installed-lock-hash');

/**
 * Installs the runtimes of the matrix from test/runtimes/package-lock.json (`npm ci`), unless
 * node_modules already holds exactly that lock: a fresh clone installs, a rerun does not.
 *
 * @example
 * ```js
 * ensureRuntimesInstalled();
 * ```
 */
export function ensureRuntimesInstalled() {
  const hash = createHash('sha256')
    .update(readFileSync(join(runtimesDir, 'package-lock.json')))
    .update(`${process.platform}-${process.arch}`)
    .digest('hex');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return;
  console.log('installing the runtime matrix (npm ci --prefix test/runtimes)…');
  // The `node` packages download their binary in a preinstall script; miniflare warns that it
  // wants Node 22, which is why run.mjs starts it with the Node 22 binary of this matrix.
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
    cwd: runtimesDir,
    stdio: 'inherit',
  });
  if (result.status !== 0)
    throw new Error(
      `npm ci in test/runtimes failed (exit ${result.status}); the runtimes come from the npm registry, so check that it is reachable.`,
    );
  writeFileSync(stampFile, hash);
}

/**
 * Points `<dir>/node_modules/webhook-cms-receiver` at the repository root, as `npm install
 * file:../..` would, so everything imports the BUILT package by name (dist/ through the
 * `exports` map), never the sources.
 *
 * @example
 * ```js
 * linkPackageInto(join(rootDir, 'examples/bun'));
 * ```
 */
export function linkPackageInto(dir) {
  if (!existsSync(join(rootDir, 'dist', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` before `npm run test:runtimes`.');
  const link = join(dir, 'node_modules', 'webhook-cms-receiver');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  rmSync(link, { force: true, recursive: false });
  symlinkSync(rootDir, link, 'dir');
}
