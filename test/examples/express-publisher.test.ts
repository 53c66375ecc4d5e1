import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { WebhookEvent } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { linkPackageInto } from '../helpers/link-package.js';
import { runScript, spawnExample } from '../helpers/spawn-example.js';

interface PublisherModule {
  startPublisher(options: {
    token: string;
    contentDir: string;
    port?: number;
    publicBaseUrl?: string;
    onError?: (error: unknown, event: WebhookEvent) => void;
  }): Promise<{ url: string; close(): Promise<void> }>;
}

const TOKEN = 'publisher-example-token-5f2c9a';
// Imported in-process: vitest resolves the example's `webhook-cms-receiver` imports to the sources.
const modulePath = '../../examples/express-publisher/app.mjs';
const { startPublisher } = (await import(/* @vite-ignore */ modulePath)) as PublisherModule;

let contentDir = '';
let endpoint = '';
let base = '';
const failures: unknown[] = [];

beforeEach(async () => {
  contentDir = await mkdtemp(join(tmpdir(), 'publisher-'));
  const publisher = await startPublisher({
    token: TOKEN,
    contentDir,
    port: 0,
    onError: (error) => failures.push(error),
  });
  endpoint = `${publisher.url}/webhook`;
  base = publisher.url;
  failures.length = 0;
  onTestFinished(() => publisher.close());
});
afterEach(() => rm(contentDir, { recursive: true, force: true }));

const deliver = (payload: object) => send(endpoint, signDelivery({ token: TOKEN, payload }));

describe('express-publisher example', () => {
  it('writes <slug>.md with front matter from the article fields and <slug>.html, and returns its URL', async () => {
    const payload = articleSyncPayload({
      article: {
        slug: 'ten-seo-tips',
        title: 'Tips: "quoted"\nand a newline',
        tags: ['seo', 'content'],
        scheduled_at: null,
      },
    });
    const answer = await deliver(payload);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, published_url: `${base}/articles/ten-seo-tips` });
    const markdown = await readFile(join(contentDir, 'ten-seo-tips.md'), 'utf8');
    const article = payload.article;
    expect(markdown).toBe(
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
  });

  it('serves the published HTML at the returned published_url', async () => {
    const payload = articleSyncPayload({ article: { slug: 'served', content_html: '<p>Served</p>' } });
    const { body } = await deliver(payload);
    const page = await send((body as { published_url: string }).published_url, { method: 'GET' });
    expect(page.status).toBe(200);
    expect(page.body).toBe('<p>Served</p>');
  });

  it('deletes both files on article.trash, and a repeated trash is still acknowledged', async () => {
    await deliver(articleSyncPayload({ article: { slug: 'short-lived' } }));
    expect((await readdir(contentDir)).sort()).toEqual(['short-lived.html', 'short-lived.md']);
    expect((await deliver(articleTrashPayload({ article: { slug: 'short-lived' } }))).status).toBe(200);
    expect(await readdir(contentDir)).toEqual([]);
    // A second, distinct trash delivery (another envelope timestamp, so not a replay).
    const again = articleTrashPayload({
      article: { slug: 'short-lived' },
      timestamp: Math.floor(Date.now() / 1000) - 5,
    });
    expect((await deliver(again)).body).toEqual({ ok: true });
  });

  it.each(['../escape', 'UPPER', 'a/b', 'dot.md', ''])(
    'refuses the unsafe slug %j with 500 so nothing is written outside the content folder',
    async (slug) => {
      const answer = await deliver(articleSyncPayload({ article: { slug } }));
      expect(answer).toMatchObject({ status: 500, body: { error: 'Handler failed' } });
      expect(await readdir(contentDir)).toEqual([]);
      expect(String(failures[0])).toContain('only a-z, 0-9 and "-"');
    },
  );

  it('acknowledges the dashboard Test Connection and refuses a wrong token', async () => {
    expect((await deliver(testPayload())).body).toEqual({ ok: true });
    const wrong = await send(endpoint, signDelivery({ token: 'not-it', payload: testPayload() }));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
  });
});

describe('express-publisher run as `node server.mjs` (built package, resolved by name)', () => {
  it('exits 1 with a message naming WEBHOOK_TOKEN when it is missing', async () => {
    const dir = await linkPackageInto('examples/express-publisher');
    const { code, output } = await runScript(dir, 'server.mjs', { WEBHOOK_TOKEN: '' });
    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_TOKEN is not set');
  });

  it('publishes into CONTENT_DIR on the port from PORT and never prints the token', async () => {
    const dir = await linkPackageInto('examples/express-publisher');
    const example = await spawnExample(dir, 'server.mjs', { WEBHOOK_TOKEN: TOKEN, PORT: '0', CONTENT_DIR: contentDir });
    onTestFinished(() => example.stop());
    const answer = await send(
      example.url,
      signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'from-child' } }) }),
    );
    expect(answer.status).toBe(200);
    expect((await readdir(contentDir)).sort()).toEqual(['from-child.html', 'from-child.md']);
    expect(example.output()).not.toContain(TOKEN);
  });
});
