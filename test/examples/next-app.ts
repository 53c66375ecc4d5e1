import { createServer } from 'node:net';
import { expect, onTestFinished } from 'vitest';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';

// Next.js asks to send telemetry on its first run; nothing here may reach the internet.
const QUIET = { NEXT_TELEMETRY_DISABLED: '1' };

/** A port free on 127.0.0.1 right now: `next start` needs a number, it cannot take 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/**
 * Runs the starter's `npm run build` (`next build`) in its copied folder and returns what it
 * printed; fails the test when the build fails.
 *
 * @example
 * ```ts
 * expect(await buildNext(starter.dir)).toMatch(/ƒ \/api\/webhook/);
 * ```
 */
export async function buildNext(dir: string): Promise<string> {
  const { code, output } = await runStarter(dir, QUIET, { command: ['npm', 'run', 'build'], timeoutMs: 240_000 });
  expect(code, output).toBe(0);
  return output;
}

/**
 * Serves a built copy with `next start` on 127.0.0.1 and resolves once it is ready, with `url`
 * pointing at `path` (the webhook route).
 *
 * @example
 * ```ts
 * const next = await startNext(starter.dir, { path: '/api/webhook', env: { WEBHOOK_TOKEN: token } });
 * ```
 */
export async function startNext(
  dir: string,
  { path, env, command }: { path: string; env: Record<string, string>; command?: [string, ...string[]] },
): Promise<RunningStarter> {
  const port = String(await freePort());
  const server = await startStarter(
    dir,
    { ...QUIET, PORT: port, HOST: '127.0.0.1', ...env },
    { command: command ?? ['npx', 'next', 'start', '--port', port, '--hostname', '127.0.0.1'], timeoutMs: 240_000 },
  );
  await server.waitFor(/Ready in/, 60_000);
  return { ...server, url: `http://127.0.0.1:${port}${path}` };
}

/**
 * Serves a built copy without WEBHOOK_TOKEN and asserts that the first delivery is answered 500
 * and the log names the variable: builds import the route without the token, requests cannot.
 *
 * @example
 * ```ts
 * await expectMissingTokenNamed(starter.dir, token);
 * ```
 */
export async function expectMissingTokenNamed(dir: string, token: string): Promise<void> {
  const tokenless = await startNext(dir, { path: '/api/webhook', env: { WEBHOOK_TOKEN: '' } });
  onTestFinished(() => tokenless.stop());
  expect((await send(tokenless.url, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
  await tokenless.waitFor('WEBHOOK_TOKEN is not set');
}
