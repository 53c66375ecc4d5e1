import { describe, expect, it, onTestFinished } from 'vitest';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { linkPackageInto } from '../helpers/link-package.js';
import { runScript, spawnExample } from '../helpers/spawn-example.js';

interface HonoExampleModule {
  startServer(options: {
    token: string;
    port?: number;
    publicBaseUrl: string;
    log?: (line: string) => void;
  }): Promise<{ url: string; close(): Promise<void> }>;
}

const TOKEN = 'hono-example-token-8d41e7';
// Imported in-process: vitest resolves the example's `webhook-cms-receiver` imports to the sources.
const modulePath = '../../examples/hono-node/app.mjs';
const { startServer } = (await import(/* @vite-ignore */ modulePath)) as HonoExampleModule;

async function start(): Promise<{ endpoint: string; lines: string[] }> {
  const lines: string[] = [];
  const server = await startServer({
    token: TOKEN,
    port: 0,
    publicBaseUrl: 'https://blog.example.com/',
    log: (line) => lines.push(line),
  });
  onTestFinished(() => server.close());
  return { endpoint: `${server.url}/webhook`, lines };
}

describe('hono-node example', () => {
  it('logs sync, trash and test events and returns published_url for a sync', async () => {
    const { endpoint, lines } = await start();
    const sync = await send(
      endpoint,
      signDelivery({
        token: TOKEN,
        payload: articleSyncPayload({ article: { slug: 'hono-post', title: 'Hono' } }),
        deliveryId: 'd-1',
      }),
    );
    expect(sync.body).toEqual({ ok: true, published_url: 'https://blog.example.com/hono-post' });
    expect(
      (
        await send(
          endpoint,
          signDelivery({
            token: TOKEN,
            payload: articleTrashPayload({ article: { slug: 'hono-post' } }),
            deliveryId: 'd-2',
          }),
        )
      ).body,
    ).toEqual({ ok: true });
    expect((await send(endpoint, signDelivery({ token: TOKEN, payload: testPayload() }))).body).toEqual({ ok: true });
    expect(lines).toEqual([
      'sync  hono-post (published) "Hono" [d-1]',
      'trash hono-post [d-2]',
      'test  Test Connection received',
    ]);
  });

  it('logs nothing for a redelivery and answers it as a duplicate', async () => {
    const { endpoint, lines } = await start();
    const payload = articleSyncPayload({ article: { slug: 'once' } });
    const now = Math.floor(Date.now() / 1000);
    await send(endpoint, signDelivery({ token: TOKEN, payload, deliveryId: 'd-once', timestamp: now - 3 }));
    const again = await send(endpoint, signDelivery({ token: TOKEN, payload, deliveryId: 'd-once', timestamp: now }));
    expect(again.body).toEqual({ ok: true, published_url: 'https://blog.example.com/once', duplicate: true });
    expect(lines).toHaveLength(1);
  });

  it('refuses a stale delivery with 403 and logs nothing', async () => {
    const { endpoint, lines } = await start();
    const stale = signDelivery({
      token: TOKEN,
      payload: testPayload(),
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect(await send(endpoint, stale)).toMatchObject({ status: 403, body: { error: 'Request expired' } });
    expect(lines).toEqual([]);
  });
});

describe('hono-node run as `node server.mjs` (built package, resolved by name)', () => {
  it('exits 1 with a message naming WEBHOOK_TOKEN when it is missing', async () => {
    const dir = await linkPackageInto('examples/hono-node');
    const { code, output } = await runScript(dir, 'server.mjs', { WEBHOOK_TOKEN: '' });
    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_TOKEN is not set');
  });

  it('answers a signed delivery with the published_url built from PUBLIC_BASE_URL', async () => {
    const dir = await linkPackageInto('examples/hono-node');
    const example = await spawnExample(dir, 'server.mjs', {
      WEBHOOK_TOKEN: TOKEN,
      PORT: '0',
      PUBLIC_BASE_URL: 'https://news.example.org',
    });
    onTestFinished(() => example.stop());
    const answer = await send(
      example.url,
      signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'child' } }) }),
    );
    expect(answer.body).toEqual({ ok: true, published_url: 'https://news.example.org/child' });
    expect(example.output()).not.toContain(TOKEN);
  });
});
