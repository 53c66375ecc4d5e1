import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env.js';

// workerd and miniflare live in the runtime matrix's install, kept apart from the root's.
const modules = fileURLToPath(new URL('../runtimes/node_modules/', import.meta.url));
const node22 = `${modules}node22/bin/node`;

/** True when the runtime matrix's install (miniflare, Node 22) is there to run workerd scripts. */
export const workerdInstalled = existsSync(`${modules}miniflare`) && existsSync(node22);

/** The title of a workerd test that cannot run here, saying how to install what it needs. */
export const WORKERD_MISSING =
  'skipped: workerd is not installed here; `npm run test:runtimes` installs it (miniflare, Node 22) in test/runtimes';

/**
 * Runs a standalone workerd check script (it starts and stops its own workerd) to its end
 * under the runtime matrix's Node 22, collecting everything it printed.
 *
 * @example
 * ```ts
 * const { code, output } = await runWorkerdScript(new URL('./durable-object.mjs', import.meta.url));
 * ```
 */
export function runWorkerdScript(script: URL): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(node22, [fileURLToPath(script)], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(String(error)));
    child.on('close', (code) => resolve({ code, output: chunks.join('') }));
  });
}
