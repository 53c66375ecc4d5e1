import { join } from 'node:path';
import { rootDir } from './install.mjs';
import { runToEnd } from './processes.mjs';
import { node22 } from './runtimes.mjs';

/**
 * The matrix's row for the Durable Object dedup store: runs test/cloudflare/durable-object.mjs
 * on the BUILT package (`--built`) in workerd without nodejs_compat, and turns what it printed
 * into the row's counts and failures.
 *
 * @example
 * ```js
 * rows.push(print(await attempt('durableObjectDedupStore (workerd)', durableObjectsInWorkerd)));
 * ```
 */
export async function durableObjectsInWorkerd() {
  const script = join(rootDir, 'test', 'cloudflare', 'durable-object.mjs');
  const { code, stdout, stderr } = await runToEnd(node22, [script, '--built'], { cwd: rootDir, timeoutMs: 300_000 });
  const summary = stdout.match(/^durable-object: (\d+) passed, (\d+) failed$/m);
  if (!summary) throw new Error(`exited ${code} without a summary: ${stderr.trim() || stdout.trim() || 'no output'}`);
  const failures = [...stdout.matchAll(/^ {2}FAIL (.+)\n {7}(.+)$/gm)].map(([, name, why]) => `${name}: ${why}`);
  const version = stdout.match(/workerd (\S+)/)?.[1];
  if (code !== 0 && failures.length === 0) failures.push(`exited ${code}: ${stderr.trim()}`);
  return { passed: Number(summary[1]), failed: Math.max(Number(summary[2]), failures.length), failures, version };
}
