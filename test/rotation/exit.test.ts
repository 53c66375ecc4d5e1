import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';

const built = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

// The re-check timer runs every tokenCacheMs while requests are kept; it must not keep a
// process (a CLI, a test runner, a serverless instance) alive on its own.
it('a process with kept requests exits on its own: the re-check timer is unref’d', async () => {
  if (!existsSync(built)) throw new Error('run `npx tsup` first: the child uses the built package');
  const script = `
    import { createReceiver } from 'webhook-cms-receiver';
    import { signDelivery, articleSyncPayload } from 'webhook-cms-receiver/testing';
    const receiver = createReceiver({ token: async () => ({ tokens: ['old-token-1234567'], rotatingUntil: Date.now() + 3_600_000 }), tokenCacheMs: 600_000, logger: false });
    const answer = await receiver.handle(signDelivery({ token: 'new-token-7654321', payload: articleSyncPayload() }), {});
    console.log('answered', answer.status);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A timer that holds the process open fails this test by its timeout; do not leave the child behind.
  onTestFinished(() => {
    if (child.exitCode === null) child.kill();
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  expect(out.trim()).toBe('answered 503');
  expect(code).toBe(0);
});
