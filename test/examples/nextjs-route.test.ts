import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import type { RunningStarter } from '../helpers/starter-process.js';
import { buildNext, expectMissingTokenNamed, startNext } from './next-app.js';
import { expectInstalledFromTarball, expectProbePasses, expectRefusals } from './starter-checks.js';

// The starter copied out of the repository, Next.js installed from the registry, built with
// its `npm run build` (`next build`, which imports the route without a token) and served by
// `next start`, as in production.
const token = `whk_${randomUUID().replaceAll('-', '')}`;
let starter: CopiedStarter;
let build = '';
let server: RunningStarter;

beforeAll(async () => {
  starter = await copyStarter('nextjs-route');
  build = await buildNext(starter.dir);
  server = await startNext(starter.dir, { path: '/api/webhook', env: { WEBHOOK_TOKEN: token } });
}, 360_000);
afterAll(async () => {
  await server?.stop();
  await starter?.remove();
});

const post = (delivery: ReturnType<typeof signDelivery>) => send(server.url, delivery);
const sync = () => articleSyncPayload({ article: { slug: 'nextjs-route-article' } });
const publishedUrl = 'https://blog.example.com/blog/nextjs-route-article';

describe('examples/nextjs-route, copied out of the repository, on Next.js', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('builds without WEBHOOK_TOKEN into a dynamic route that answers only POST', async () => {
    expect(build).toMatch(/ƒ \/api\/webhook/);
    // next build type-checks the route against Next's own types and fails on an error.
    expect(build).toMatch(/Finished TypeScript/);
    expect(await send(server.url, { method: 'GET' })).toMatchObject({ status: 405 });
  });

  it('acknowledges the dashboard test delivery and article.trash', async () => {
    expect(await post(signDelivery({ token, payload: testPayload() }))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const trash = articleTrashPayload({ article: { slug: 'nextjs-route-article' } });
    expect(await post(signDelivery({ token, payload: trash }))).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('answers article.sync with the published_url, and a redelivery of its id as a duplicate', async () => {
    const payload = sync();
    const first = await deliver(server.url, { token, payload, maxAttempts: 1 });
    expect(first.summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl });
    const again = await deliver(server.url, { token, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
    expect(again.summary).toEqual({ ok: true, duplicate: true, status: 200, publishedUrl });
  });

  it('refuses a wrong token with 401, a tampered body and a stale delivery with 403', async () => {
    await expectRefusals(server.url, token);
    expect(server.output()).not.toContain(token);
  });

  it('passes probe --writes, the check users run against their own endpoint', async () => {
    await expectProbePasses(server.url, token);
  }, 60_000);

  it('started without WEBHOOK_TOKEN, names it on the first request', async () => {
    await expectMissingTokenNamed(starter.dir, token);
  }, 120_000);
});
