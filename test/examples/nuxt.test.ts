import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, deliver, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { send } from '../helpers/http-client.js';
import { type RunningStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Nuxt is not installed here, so `nuxt dev` cannot run. What can: the starter copied out of the
// repository with the packed package installed beside it, its server route compiled as Nitro
// would, and loaded lazily by a stand-in for Nitro (fixtures/nitro-route-server.mjs) on the
// real h3 1 that Nuxt 3 and 4 run, and on h3 2, over real HTTP.
const token = `whk_${randomUUID().replaceAll('-', '')}`;
const modules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const H3 = { 1: join(modules, 'h3v1/dist/index.mjs'), 2: join(modules, 'h3/dist/_entries/node.mjs') };
let starter: CopiedStarter;
let standIn = '';

beforeAll(async () => {
  starter = await copyStarter('nuxt', { install: 'package-only' });
  standIn = join(starter.dir, '..', 'nitro-stand-in');
  await mkdir(standIn);
  const source = await readFile(join(starter.dir, 'server/routes/webhook.post.ts'), 'utf8');
  const compiled = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  await writeFile(join(standIn, 'route.mjs'), compiled.outputText);
  await copyFile(new URL('./fixtures/nitro-route-server.mjs', import.meta.url), join(standIn, 'server.mjs'));
}, 180_000);
afterAll(() => starter?.remove());

async function serve(major: 1 | 2, env: Record<string, string> = { WEBHOOK_TOKEN: token }): Promise<RunningStarter> {
  const server = await startStarter(
    standIn,
    { PORT: '0', HOST: '127.0.0.1', ...env },
    { command: [process.execPath, 'server.mjs', H3[major], String(major), 'route.mjs'] },
  );
  onTestFinished(() => server.stop());
  return server;
}

describe('examples/nuxt, copied out of the repository', () => {
  it('depends on nuxt and on webhook-cms-receiver by version range, and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
    const manifest = JSON.parse(await readFile(join(starter.dir, 'package.json'), 'utf8'));
    expect(manifest.dependencies.nuxt).toMatch(/^\^\d+/);
  });

  describe.each([1, 2] as const)('its server route on h3 %i', (major) => {
    it('acknowledges the test delivery and answers article.sync with published_url, then a duplicate', async () => {
      const server = await serve(major);
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
      // h3 1 warns when it has to convert a plain function into an event handler.
      expect(server.output()).not.toContain('[h3]');
    });

    it('refuses a wrong token with 401, a tampered body and a stale delivery with 403', async () => {
      const server = await serve(major);
      const sync = () => articleSyncPayload({ article: { slug: 'nuxt-article' } });
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

    it('starts without WEBHOOK_TOKEN and names it on the first request to the route', async () => {
      const server = await serve(major, { WEBHOOK_TOKEN: '' });
      expect((await send(server.url, signDelivery({ token, payload: testPayload() }))).status).toBe(500);
      await server.waitFor('Is WEBHOOK_TOKEN set?');
    });
  });
});
