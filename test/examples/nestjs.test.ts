import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';

type Platform = 'express' | 'fastify';

interface NestExampleApp {
  startServer(options: {
    platform: Platform;
    token: string;
    rawBody?: boolean;
    port?: number;
    publicBaseUrl?: string;
    log?: (line: string) => void;
    nestLogs?: boolean;
  }): Promise<{ url: string; close(): Promise<void> }>;
}
interface NestExampleModule {
  AppModule: {
    forRoot(options: {
      platform: Platform;
      receiver: ReturnType<typeof createReceiver>;
      articles: unknown;
      webhookController: boolean;
    }): DynamicModule;
  };
}
interface NestExampleArticles {
  ArticlesService: new (options: {
    publicBaseUrl: string;
    log: (line: string) => void;
  }) => {
    handlers: WebhookHandlers;
  };
}

const TOKEN = 'nestjs-example-token-5c02aa';
// Imported by path, so the test type-check does not compile the example (it has its own tsconfig
// with decorators); vitest reads that tsconfig and resolves `webhook-cms-receiver` to the sources.
const load = <T>(file: string): Promise<T> => import(/* @vite-ignore */ `../../examples/nestjs/src/${file}`);
const { startServer } = await load<NestExampleApp>('app.js');

async function start(platform: Platform, rawBody: boolean) {
  const lines: string[] = [];
  const server = await startServer({
    platform,
    token: TOKEN,
    rawBody,
    port: 0,
    publicBaseUrl: 'https://blog.example.com/',
    log: (line) => lines.push(line),
    nestLogs: false,
  });
  onTestFinished(() => server.close());
  return { url: server.url, lines };
}

const variants: [string, Platform, boolean][] = [
  ['Express platform, rawBody: true (controller)', 'express', true],
  ['Express platform, no rawBody (mounted before the parser)', 'express', false],
  ['Fastify platform, rawBody: true (controller)', 'fastify', true],
  ['Fastify platform, no rawBody (webhookPlugin)', 'fastify', false],
];

describe.each(variants)('nestjs example: %s', (_name, platform, rawBody) => {
  it('publishes a sync, acknowledges trash and test, and answers a redelivery as a duplicate', async () => {
    const { url, lines } = await start(platform, rawBody);
    const payload = articleSyncPayload({ article: { slug: 'nest-post', title: 'Nest' } });
    const now = Math.floor(Date.now() / 1000);
    const sync = signDelivery({ token: TOKEN, payload, deliveryId: 'd-1', timestamp: now - 5 });
    expect((await send(`${url}/webhook`, sync)).body).toEqual({
      ok: true,
      published_url: 'https://blog.example.com/nest-post',
    });
    const again = signDelivery({ token: TOKEN, payload, deliveryId: 'd-1', timestamp: now });
    expect((await send(`${url}/webhook`, again)).body).toMatchObject({ duplicate: true });
    const trash = articleTrashPayload({ article: { slug: 'nest-post' } });
    expect(
      (await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: trash, deliveryId: 'd-2' }))).status,
    ).toBe(200);
    expect((await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: testPayload() }))).status).toBe(200);
    expect(lines).toEqual([
      'sync  nest-post (published) "Nest" [d-1]',
      'trash nest-post [d-2]',
      'test  Test Connection received',
    ]);
  });

  it('accepts a 2 MiB article, and refuses a tampered body, a wrong token and GET', async () => {
    const { url } = await start(platform, rawBody);
    const big = articleSyncPayload({ article: { slug: 'big', content_html: `<p>${'x'.repeat(2 * 1024 * 1024)}</p>` } });
    expect((await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: big }))).status).toBe(200);
    const good = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
    const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
    const refusals = [
      await send(`${url}/webhook`, tampered),
      await send(`${url}/webhook`, signDelivery({ token: 'not-the-token', payload: testPayload() })),
      await send(`${url}/webhook`, { method: 'GET' }),
    ];
    expect(refusals.map(({ status, body, allow }) => ({ status, body, allow }))).toEqual([
      { status: 403, body: { error: 'Invalid signature' }, allow: undefined },
      { status: 401, body: { error: 'Invalid token' }, allow: undefined },
      { status: 405, body: { error: 'Method not allowed' }, allow: 'POST' },
    ]);
  });

  it("keeps Nest's JSON parser on the app's other routes", async () => {
    const { url } = await start(platform, rawBody);
    const payload = articleSyncPayload({ article: { slug: 'found', title: 'Finding Nest' } });
    await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload }));
    const search = await send(`${url}/articles/search`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'nest' }),
    });
    expect(search.body).toEqual([
      { slug: 'found', title: 'Finding Nest', status: 'published', publishedUrl: 'https://blog.example.com/found' },
    ]);
  });
});

describe('nestjs: a webhook controller without rawBody: true', () => {
  it.each([
    ['express', /express\.raw\(\{ type: 'application\/json', limit: '10mb' \}\)/],
    ['fastify', /app\.register\(webhookPlugin/],
  ] as const)('answers 500 Server misconfigured on %s and logs one line naming the fix', async (platform, fix) => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const { AppModule } = await load<NestExampleModule>('app.module.js');
    const { ArticlesService } = await load<NestExampleArticles>('articles.service.js');
    const module = AppModule.forRoot({
      platform,
      receiver: createReceiver({ token: TOKEN }),
      articles: new ArticlesService({ publicBaseUrl: 'https://blog.example.com', log: () => undefined }),
      webhookController: true,
    });
    const app: INestApplication =
      platform === 'fastify'
        ? await NestFactory.create(module, new FastifyAdapter(), { logger: false })
        : await NestFactory.create(module, { logger: false });
    await app.listen(0, '127.0.0.1');
    onTestFinished(() => app.close());
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/webhook`;
    const answer = await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }));
    expect([answer.status, answer.body]).toEqual([500, { error: 'Server misconfigured' }]);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]?.[0])).toMatch(fix);
    expect(String(errors.mock.calls[0]?.[0])).not.toContain(TOKEN);
  });
});
