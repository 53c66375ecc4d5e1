import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, onTestFinished } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  deliver,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import type { NextApiHandler } from 'next';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Next.js is not installed here (nor a dependency of this repository), so `next build && next
// start` cannot run. What can: the starter copied out of the repository with the packed package
// installed beside it, its API route compiled as Next.js would and served by a node:http
// stand-in for `next start` (fixtures/next-pages-server.mjs) that parses bodies first unless the
// route's config turns that off, as Next.js does. The route's types are checked against
// fixtures/next-api.d.ts, the shapes of Next's NextApiRequest and NextApiResponse.
type PagesRoute = typeof import('../../examples/nextjs-pages/pages/api/webhook.js');

const token = `whk_${randomUUID().replaceAll('-', '')}`;
let starter: CopiedStarter;
let standIn = '';
let server: RunningStarter;

beforeAll(async () => {
  starter = await copyStarter('nextjs-pages', { install: 'package-only' });
  // Beside the copy, not in it: the starter stays as the user has it.
  standIn = join(starter.dir, '..', 'next-stand-in');
  await mkdir(standIn);
  const source = await readFile(join(starter.dir, 'pages/api/webhook.ts'), 'utf8');
  await writeFile(join(standIn, 'webhook.mjs'), compile(source));
  // The mistake the config prevents: the same route with Next's default body parser left on.
  const parsed = source.replace(/export const config = .*;\n/, '');
  expect(parsed).not.toBe(source);
  await writeFile(join(standIn, 'webhook-parsed.mjs'), compile(parsed));
  await copyFile(new URL('./fixtures/next-pages-server.mjs', import.meta.url), join(standIn, 'server.mjs'));
  server = await serve('webhook.mjs', { WEBHOOK_TOKEN: token });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await starter?.remove();
});

function compile(source: string): string {
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

function serve(route: string, env: Record<string, string>): Promise<RunningStarter> {
  return startStarter(
    standIn,
    { PORT: '0', HOST: '127.0.0.1', ...env },
    { command: [process.execPath, 'server.mjs', route] },
  );
}

const post = (delivery: ReturnType<typeof signDelivery>) => send(server.url, delivery);
const sync = () => articleSyncPayload({ article: { slug: 'nextjs-pages-article' } });
const publishedUrl = 'https://blog.example.com/blog/nextjs-pages-article';

describe('examples/nextjs-pages, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('is a Next.js API route with the body parser off, typed as Next.js types it', async () => {
    expectTypeOf<PagesRoute['default']>().toExtend<NextApiHandler>();
    expect(server.output()).toMatch(/API route \(bodyParser off\) on http:\/\//);
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
    const refused = await Promise.all([
      deliver(server.url, { token, payload: sync(), wrongToken: true, maxAttempts: 1 }),
      deliver(server.url, { token, payload: sync(), tamper: true, maxAttempts: 1 }),
      deliver(server.url, { token, payload: sync(), staleBy: 600, maxAttempts: 1 }),
    ]);
    expect(refused.map(({ attempts }) => [attempts[0]?.status, attempts[0]?.body])).toEqual([
      [401, { error: 'Invalid token' }],
      [403, { error: 'Invalid signature' }],
      [403, { error: 'Request expired' }],
    ]);
    expect(server.output()).not.toContain(token);
  });

  it('without `config.api.bodyParser = false`, answers 500 and logs the Next.js fix', async () => {
    const parsed = await serve('webhook-parsed.mjs', { WEBHOOK_TOKEN: token });
    onTestFinished(() => parsed.stop());
    expect(parsed.output()).toMatch(/bodyParser on/);
    expect((await send(parsed.url, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
    await parsed.waitFor('export const config = { api: { bodyParser: false } }');
    expect(parsed.output()).not.toContain(token);
  });

  it('loads without WEBHOOK_TOKEN (as `next build` imports it) and names it on the first request', async () => {
    const tokenless = await serve('webhook.mjs', { WEBHOOK_TOKEN: '' });
    onTestFinished(() => tokenless.stop());
    expect((await send(tokenless.url, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
    expect(tokenless.output()).toContain('WEBHOOK_TOKEN is not set');
  });
});
