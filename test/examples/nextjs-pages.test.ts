import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
import { expectMissingTokenNamed, startNext } from './next-app.js';
import { expectInstalledFromTarball, expectProbePasses, expectRefusals } from './starter-checks.js';

// The starter copied out of the repository, Next.js installed from the registry, started with
// its one command, `npm start` (`next build && next start`). Before that, the test adds the
// mistake the route's config prevents beside it: the same route with Next's body parser on.
const token = `whk_${randomUUID().replaceAll('-', '')}`;
let starter: CopiedStarter;
let server: RunningStarter;

beforeAll(async () => {
  starter = await copyStarter('nextjs-pages');
  const route = join(starter.dir, 'pages/api/webhook.ts');
  const source = await readFile(route, 'utf8');
  const parsed = source.replace(/export const config = .*;\n/, '');
  expect(parsed).not.toBe(source);
  await writeFile(join(starter.dir, 'pages/api/webhook-parsed.ts'), parsed);
  server = await startNext(starter.dir, {
    path: '/api/webhook',
    env: { WEBHOOK_TOKEN: token },
    command: ['npm', 'start'],
  });
}, 360_000);
afterAll(async () => {
  await server?.stop();
  await starter?.remove();
});

const post = (delivery: ReturnType<typeof signDelivery>) => send(server.url, delivery);
const sync = () => articleSyncPayload({ article: { slug: 'nextjs-pages-article' } });
const publishedUrl = 'https://blog.example.com/blog/nextjs-pages-article';

describe('examples/nextjs-pages, copied out of the repository, on Next.js', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('builds without WEBHOOK_TOKEN and answers another method 405 with Allow: POST', async () => {
    expect(server.output()).toMatch(/ƒ \/api\/webhook\b/);
    // next build type-checks the route against Next's own types and fails on an error.
    expect(server.output()).toMatch(/Finished TypeScript/);
    expect(await send(server.url, { method: 'GET' })).toMatchObject({ status: 405, allow: 'POST' });
  });

  it('acknowledges the dashboard test delivery and article.trash', async () => {
    expect(await post(signDelivery({ token, payload: testPayload() }))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const trash = articleTrashPayload({ article: { slug: 'nextjs-pages-article' } });
    expect(await post(signDelivery({ token, payload: trash }))).toMatchObject({ status: 200, body: { ok: true } });
    // The log line can reach the pipe after the HTTP answer.
    await server.waitFor('trash nextjs-pages-article');
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

  it("with Next's body parser left on, answers 500 and logs the Next.js fix", async () => {
    const parsed = `${server.url}-parsed`;
    expect((await send(parsed, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
    await server.waitFor('export const config = { api: { bodyParser: false } }');
    expect(server.output()).not.toContain(token);
  });

  it('passes probe --writes, the check users run against their own endpoint', async () => {
    await expectProbePasses(server.url, token);
  }, 60_000);

  it('started without WEBHOOK_TOKEN, names it on the first request', async () => {
    await expectMissingTokenNamed(starter.dir, token);
  }, 120_000);
});
