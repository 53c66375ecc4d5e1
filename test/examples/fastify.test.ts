import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { runStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, started with `npm start`.
const TOKEN = 'fastify-example-token-3b9f20';
let starter: CopiedStarter;

beforeAll(async () => {
  starter = await copyStarter('fastify');
}, 180_000);
afterAll(() => starter?.remove());

/** A fresh `npm start` per test: its log and its dedup memory are the test's alone. */
async function start(env: Record<string, string> = {}) {
  const server = await startStarter(starter.dir, { WEBHOOK_TOKEN: TOKEN, PORT: '0', HOST: '127.0.0.1', ...env });
  onTestFinished(() => server.stop());
  const lines = () =>
    server
      .output()
      .split('\n')
      .filter((line) => /^(sync|trash|test|skip) /.test(line));
  // Handler logs can reach the pipe after the HTTP answer. Called once per server, last: its
  // test event logs after everything before it, so once its line is there, all of them are.
  const settled = async () => {
    const answer = await send(server.url, signDelivery({ token: TOKEN, payload: testPayload() }));
    expect(answer.body).toEqual({ ok: true });
    await server.waitFor(/^test {2}Test Connection received$/m);
    return lines();
  };
  return { endpoint: server.url, settled, output: server.output };
}

describe('examples/fastify, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('logs sync, trash and test events and answers published_url from PUBLIC_BASE_URL', async () => {
    const { endpoint, settled, output } = await start({ PUBLIC_BASE_URL: 'https://news.example.org/' });
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    const sync = articleSyncPayload({ article: { slug: 'fastify-post', title: 'Title' } });
    const synced = await deliver(endpoint, { token: TOKEN, payload: sync, deliveryId: 'd-1', maxAttempts: 1 });
    expect(synced.summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl: 'https://news.example.org/fastify-post',
    });
    const trash = articleTrashPayload({ article: { id: sync.article.id, slug: 'fastify-post' } });
    expect((await send(endpoint, signDelivery({ token: TOKEN, payload: trash, deliveryId: 'd-2' }))).body).toEqual({
      ok: true,
    });
    expect(await settled()).toEqual([
      'sync  fastify-post (published) "Title" [d-1]',
      'trash fastify-post [d-2]',
      'test  Test Connection received',
    ]);
    expect(output()).not.toContain(TOKEN);
  });

  it('answers a redelivery as a duplicate and logs nothing for it', async () => {
    const { endpoint, settled } = await start();
    const payload = articleSyncPayload({ article: { slug: 'once' } });
    const first = await deliver(endpoint, { token: TOKEN, payload, maxAttempts: 1 });
    const again = await deliver(endpoint, { token: TOKEN, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
    expect(again.summary).toEqual({
      ok: true,
      duplicate: true,
      status: 200,
      publishedUrl: 'https://blog.example.com/once',
    });
    expect(await settled()).toEqual([
      `sync  once (published) "${payload.article.title}" [${first.deliveryId}]`,
      'test  Test Connection received',
    ]);
  });

  it('refuses a stale, a tampered and a wrongly signed delivery, and logs nothing', async () => {
    const { endpoint, settled } = await start();
    const payload = articleSyncPayload();
    const stale = await deliver(endpoint, { token: TOKEN, payload, staleBy: 600, maxAttempts: 1 });
    const tampered = await deliver(endpoint, { token: TOKEN, payload, tamper: true, maxAttempts: 1 });
    const wrong = await deliver(endpoint, { token: TOKEN, payload, wrongToken: true, maxAttempts: 1 });
    expect(
      [stale, tampered, wrong].map((result) => [result.outcome, result.attempts[0]?.status, result.attempts[0]?.body]),
    ).toEqual([
      ['refused', 403, { error: 'Request expired' }],
      ['refused', 403, { error: 'Invalid signature' }],
      ['refused', 401, { error: 'Invalid token' }],
    ]);
    expect(await settled()).toEqual(['test  Test Connection received']);
  });

  it("keeps Fastify's JSON parser on the app's other routes", async () => {
    const { endpoint, settled } = await start();
    const echo = endpoint.replace(/\/webhook$/, '/echo');
    const parsed = await fetch(echo, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'fastify' }),
    });
    expect([parsed.status, await parsed.json()]).toEqual([200, { received: { hello: 'fastify' } }]);
    const broken = await fetch(echo, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(broken.status).toBe(400);
    expect(await settled()).toEqual(['test  Test Connection received']);
  });

  it('`npm start` without WEBHOOK_TOKEN fails with a message naming it', async () => {
    const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '', PORT: '0' });
    expect(code).not.toBe(0);
    expect(output).toContain('WEBHOOK_TOKEN is not set');
  });
});
