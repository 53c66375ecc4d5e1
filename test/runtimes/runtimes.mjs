import { join } from 'node:path';
import { runtimesDir } from './install.mjs';

const bin = (path) => join(runtimesDir, 'node_modules', path);

/** The Node 22 binary of the matrix; miniflare 4 needs Node 22+, so the Worker host runs on it. */
export const node22 = bin('node22/bin/node');
export const bun = bin('.bin/bun');
export const deno = bin('.bin/deno');
export const esbuild = bin('.bin/esbuild');

/**
 * Every runtime of the matrix: how to run main.mjs on it, what it must report itself as, and
 * the crypto path the core must take there. Node before 20.16 has no
 * `process.getBuiltinModule`, so early Node 20 proves the Web Crypto fallback on Node too.
 */
export const runtimes = [
  {
    label: 'node 20 (system)',
    command: process.execPath,
    args: ['main.mjs'],
    runtime: 'node',
    major: '20',
    crypto: 'node:crypto',
  },
  {
    label: 'node 20.11 (npm)',
    command: bin('node20early/bin/node'),
    args: ['main.mjs'],
    runtime: 'node',
    major: '20',
    crypto: 'webcrypto',
  },
  { label: 'node 22 (npm)', command: node22, args: ['main.mjs'], runtime: 'node', major: '22', crypto: 'node:crypto' },
  {
    label: 'node 24 (npm)',
    command: bin('node24/bin/node'),
    args: ['main.mjs'],
    runtime: 'node',
    major: '24',
    crypto: 'node:crypto',
  },
  { label: 'bun (npm)', command: bun, args: ['main.mjs'], runtime: 'bun', crypto: 'node:crypto' },
  // No permission flags at all: verifying a webhook must need none.
  {
    label: 'deno (npm)',
    command: deno,
    args: ['run', '--no-prompt', 'main.mjs'],
    runtime: 'deno',
    crypto: 'node:crypto',
  },
  { label: 'workerd (miniflare)', worker: true, runtime: 'workerd', crypto: 'webcrypto' },
  // The same bundle with the flag: the core must notice node:crypto and switch by itself.
  {
    label: 'workerd + nodejs_compat',
    worker: true,
    flags: ['nodejs_compat'],
    runtime: 'workerd',
    crypto: 'node:crypto',
  },
];

/**
 * Turns one runtime's report into failures: its own vector failures plus any mismatch with
 * what the matrix expects of it (wrong runtime, wrong major version, wrong crypto path).
 *
 * @example
 * ```js
 * const problems = judge(runtimes[0], { runtime: 'node', version: '20.20.2', cryptoPath: 'node:crypto', failures: [] });
 * ```
 */
export function judge(entry, report) {
  const problems = [...report.failures];
  if (report.runtime !== entry.runtime) problems.push(`ran as ${report.runtime}, expected ${entry.runtime}`);
  if (entry.major && !String(report.version).startsWith(`${entry.major}.`))
    problems.push(`version ${report.version}, expected ${entry.major}.x`);
  if (report.cryptoPath !== entry.crypto) problems.push(`crypto path ${report.cryptoPath}, expected ${entry.crypto}`);
  return problems;
}
