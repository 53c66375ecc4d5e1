import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, deliver, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { freePort } from './next-app.js';
import { expectInstalledFromTarball, expectProbePasses, expectRefusals } from './starter-checks.js';

// The starter copied out of the repository, Nuxt installed from the registry, built with its
// `npm run build` (`nuxt build`, without the token) and served by its `npm start` (the Nitro
// Node server), as in production.
const token = `whk_${randomUUID().replaceAll('-', '')}`;
let starter: CopiedStarter;
let build = '';

beforeAll(async () => {
  starter = await copyStarter('nuxt');
  const env = { NUXT_TELEMETRY_DISABLED: '1', WEBHOOK_TOKEN: '' };
  const result = await runStarter(starter.dir, env, { command: ['npm', 'run', 'build'], timeoutMs: 300_000 });
  expect(result.code, result.output).toBe(0);
  build = result.output;
}, 420_000);
afterAll(() => starter?.remove());

async function serve(env: Record<string, string> = { WEBHOOK_TOKEN: token }): Promise<RunningStarter> {
  const server = await startStarter(starter.dir, { PORT: String(await freePort()), HOST: '127.0.0.1', ...env });
  onTestFinished(() => server.stop());
  return { ...server, url: `${server.url.replace(/\/$/, '')}/webhook` };
}

describe('examples/nuxt, copied out of the repository, on Nuxt', () => {
  it('depends on nuxt and on webhook-cms-receiver by version range, and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
    const manifest = JSON.parse(await readFile(join(starter.dir, 'package.json'), 'utf8'));
    expect(manifest.dependencies.nuxt).toMatch(/^\^\d+/);
    // Nitro bundled the route: `nuxt build` imported nothing that needs the token.
    expect(existsSync(join(starter.dir, '.output/server/chunks/routes/webhook.post.mjs')), build).toBe(true);
  });

  it('acknowledges the test delivery and answers article.sync with published_url, then a duplicate', async () => {
    const server = await serve();
    expect(await send(server.url, signDelivery({ token, payload: testPayload() }))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const payload = articleSyncPayload({ article: { slug: 'nuxt-article' } });
    const first = await deliver(server.url, { token, payload, maxAttempts: 1 });
    const publishedUrl = 'https://blog.example.com/nuxt-article';
    expect(first.summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl });
    const again = await deliver(server.url, { token, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
    expect(again.summary).toEqual({ ok: true, duplicate: true, status: 200, publishedUrl });
    await server.waitFor(/^sync {2}nuxt-article \(published\)/m);
    // h3 warns when it has to convert a plain function into an event handler.
    expect(server.output()).not.toContain('[h3]');
  });

  it('refuses a wrong token with 401, a tampered body and a stale delivery with 403', async () => {
    const server = await serve();
    await expectRefusals(server.url, token);
    expect(server.output()).not.toContain(token);
  });

  it('passes probe --writes, the check users run against their own endpoint', async () => {
    const server = await serve();
    await expectProbePasses(server.url, token);
  }, 60_000);

  it('starts without WEBHOOK_TOKEN and names it on the first request to the route', async () => {
    const server = await serve({ WEBHOOK_TOKEN: '' });
    expect((await send(server.url, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
    await server.waitFor('Is WEBHOOK_TOKEN set?');
  });
});
