import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/child-env.js';

const script = fileURLToPath(new URL('./cloudflare-queue.mjs', import.meta.url));
const modules = fileURLToPath(new URL('../runtimes/node_modules/', import.meta.url));
const node22 = `${modules}node22/bin/node`;
const installed = existsSync(`${modules}miniflare`) && existsSync(node22);

/** Runs the standalone check to its end (it stops its own workerd), collecting what it printed. */
function runScript(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(node22, [script], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(String(error)));
    child.on('close', (code) => resolve({ code, output: chunks.join('') }));
  });
}

// workerd and miniflare live in the runtime matrix's install, kept apart from the root's.
const title = installed
  ? 'queued answers, one effect per delivery, retries with backoff, dead letters and ordering all pass'
  : 'skipped: workerd is not installed here; `npm run test:runtimes` installs it (miniflare, Node 22) in test/runtimes';

describe('queue mode on Cloudflare Queues in workerd (test/queue/cloudflare-queue.mjs)', () => {
  it.skipIf(!installed)(
    title,
    async () => {
      const { code, output } = await runScript();
      expect(output, output).toMatch(/^cloudflare-queue: [1-9]\d* passed, 0 failed$/m);
      expect(code, output).toBe(0);
    },
    180_000,
  );
});
