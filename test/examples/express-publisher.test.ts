import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
import { type RunningStarter, runStarter, startStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, started with `npm start`.
const TOKEN = 'publisher-example-token-5f2c9a';
let starter: CopiedStarter;
let server: RunningStarter;
let outside = '';
let contentDir = '';

beforeAll(async () => {
  starter = await copyStarter('express-publisher');
  outside = await mkdtemp(join(tmpdir(), 'publisher-'));
  // A subfolder, so a slug that climbed out of it would land in `outside`, where the test looks.
  contentDir = join(outside, 'content');
  server = await startStarter(starter.dir, {
    WEBHOOK_TOKEN: TOKEN,
    PORT: '0',
    HOST: '127.0.0.1',
    CONTENT_DIR: contentDir,
  });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await starter?.remove();
  await rm(outside, { recursive: true, force: true });
});

const endpoint = () => server.url;
const base = () => server.url.replace(/\/webhook$/, '');
const post = (payload: object, token = TOKEN) => send(endpoint(), signDelivery({ token, payload }));
const filesOf = async (slug: string) =>
  (await readdir(contentDir).catch(() => [])).filter((file) => file.startsWith(`${slug}.`)).sort();

describe('examples/express-publisher, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('`npm start` listens on HOST and the port from PORT', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    expect(server.url).not.toContain(':3000/');
  });

  it('writes <slug>.md with front matter and <slug>.html, and answers a published_url that serves the HTML', async () => {
    const payload = articleSyncPayload({
      article: { slug: 'ten-seo-tips', title: 'Tips: "quoted"\nand a newline', scheduled_at: null },
    });
    const result = await deliver(endpoint(), { token: TOKEN, payload, maxAttempts: 1 });
    expect(result.summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl: `${base()}/articles/ten-seo-tips`,
    });
    const { article } = payload;
    expect(await readFile(join(contentDir, 'ten-seo-tips.md'), 'utf8')).toBe(
      [
        '---',
        'title: "Tips: \\"quoted\\"\\nand a newline"',
        'slug: "ten-seo-tips"',
        'status: "published"',
        'tags: ["seo","content"]',
        `meta_description: ${JSON.stringify(article.meta_description)}`,
        `published_at: ${JSON.stringify(article.published_at)}`,
        'scheduled_at: null',
        `featured_image_url: ${JSON.stringify(article.featured_image_url)}`,
        '---',
        article.content_markdown,
      ].join('\n'),
    );
    expect(await readFile(join(contentDir, 'ten-seo-tips.html'), 'utf8')).toBe(article.content_html);
    expect(await send(`${base()}/articles/ten-seo-tips`, { method: 'GET' })).toMatchObject({
      status: 200,
      body: article.content_html,
    });
  });

  it('answers a redelivery of the same id as a duplicate without writing again', async () => {
    const payload = articleSyncPayload({ article: { slug: 'written-once' } });
    const first = await deliver(endpoint(), { token: TOKEN, payload, maxAttempts: 1 });
    await rm(join(contentDir, 'written-once.md'));
    await rm(join(contentDir, 'written-once.html'));
    const again = await deliver(endpoint(), { token: TOKEN, payload, deliveryId: first.deliveryId, maxAttempts: 1 });
    expect(again.summary).toMatchObject({ ok: true, duplicate: true, publishedUrl: `${base()}/articles/written-once` });
    expect(await filesOf('written-once')).toEqual([]);
  });

  it('deletes both files on article.trash, and a second trash delivery is still acknowledged', async () => {
    const sync = articleSyncPayload({ article: { slug: 'short-lived' } });
    await deliver(endpoint(), { token: TOKEN, payload: sync, maxAttempts: 1 });
    expect(await filesOf('short-lived')).toEqual(['short-lived.html', 'short-lived.md']);
    const trash = () => articleTrashPayload({ article: { id: sync.article.id, slug: 'short-lived' } });
    expect((await post(trash())).body).toEqual({ ok: true });
    expect(await filesOf('short-lived')).toEqual([]);
    expect((await post(trash())).body).toEqual({ ok: true });
  });

  it.each(['../escape', 'UPPER', 'a/b', 'dot.md', ''])(
    'refuses the unsafe slug %j with 500, writes nothing anywhere and logs why',
    async (slug) => {
      const before = [await readdir(outside), await readdir(contentDir)];
      const answer = await post(articleSyncPayload({ article: { slug } }));
      expect(answer).toMatchObject({ status: 500, body: { error: 'Handler failed' } });
      expect([await readdir(outside), await readdir(contentDir)]).toEqual(before);
      await server.waitFor(`Refusing slug ${JSON.stringify(slug)}: only a-z, 0-9 and "-"`);
    },
  );

  it('acknowledges the dashboard Test Connection, refuses a wrong token and never prints the token', async () => {
    expect((await post(testPayload())).body).toEqual({ ok: true });
    expect(await post(testPayload(), 'not-it')).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
    await server.waitFor('Test Connection received');
    expect(server.output()).not.toContain(TOKEN);
  });

  it('`npm start` without WEBHOOK_TOKEN fails with a message naming it', async () => {
    const { code, output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: '', PORT: '0' });
    expect(code).not.toBe(0);
    expect(output).toContain('WEBHOOK_TOKEN is not set');
  });
});
