import { createServer } from 'node:http';
import {
  createApp,
  createRouter,
  defineEventHandler,
  readBody,
  readRawBody,
  setResponseHeader,
  toNodeListener,
  toWebHandler,
} from 'h3v1';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/h3';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import { startH3v1, startH3v1Web } from './h3-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('h3 1 on node:http (toNodeListener)', startH3v1);
// Nitro's edge presets: the host, not h3, owns the socket.
adapterScenarios('h3 1 through toWebHandler', startH3v1Web, { ownsSocket: false });

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
const publish = () => ({ publishedUrl: 'https://blog.example.com/h3' });
const sync = () => signDelivery({ token: TOKEN, payload: articleSyncPayload() });

async function serve(app: ReturnType<typeof createApp>): Promise<string> {
  const server = await listen(createServer(toNodeListener(app)));
  onTestFinished(() => server.close());
  return `${server.url}/webhook`;
}

async function serveWeb(app: ReturnType<typeof createApp>): Promise<string> {
  const server = await listen(fetchServer(toWebHandler(app)));
  onTestFinished(() => server.close());
  return `${server.url}/webhook`;
}

function errorLog() {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map((call) => call.map(String).join(' ')).join('\n');
}

describe('h3 1: a body read before the handler', () => {
  it.each([
    ['readBody', (event: Parameters<typeof readBody>[0]) => readBody(event)],
    ['readRawBody', (event: Parameters<typeof readBody>[0]) => readRawBody(event)],
  ])('answers 500 Server misconfigured, not 403, after %s in a middleware, naming the fix', async (_name, read) => {
    const log = errorLog();
    const app = createApp()
      .use(defineEventHandler(async (event) => void (await read(event))))
      .use('/webhook', webhookHandler(receiver(), {}));
    expect(await send(await serve(app), sync())).toEqual(answers.error(500, 'Server misconfigured'));
    expect(log()).toMatch(/readBody.*Read nothing from the event before the webhook handler/s);
  });

  it('answers 500 after readBody through toWebHandler too', async () => {
    const log = errorLog();
    const app = createApp()
      .use(defineEventHandler(async (event) => void (await readBody(event))))
      .use('/webhook', webhookHandler(receiver(), {}));
    expect(await send(await serveWeb(app), sync())).toEqual(answers.error(500, 'Server misconfigured'));
    expect(log()).toContain('readBody');
  });
});

describe('h3 1: routers, defineEventHandler and other middleware', () => {
  it('works as router.post, wrapped in defineEventHandler, keeping headers set before it', async () => {
    const webhook = webhookHandler(receiver(), { 'article.sync': publish, test: publish });
    const router = createRouter().post('/webhook', defineEventHandler(webhook));
    const app = createApp()
      .use(defineEventHandler((event) => void setResponseHeader(event, 'x-request-id', 'r-1')))
      .use(router);
    const url = await serve(app);
    expect(await send(url, sync())).toEqual(answers.ok('https://blog.example.com/h3'));
    const response = await fetch(url, { method: 'POST', ...signDelivery({ token: TOKEN, payload: testPayload() }) });
    expect(response.headers.get('x-request-id')).toBe('r-1');
  });

  it('works called from inside a handler of your own', async () => {
    const webhook = webhookHandler(receiver(), { 'article.sync': publish });
    const app = createApp().use(
      '/webhook',
      defineEventHandler((event) => webhook(event)),
    );
    expect(await send(await serve(app), sync())).toEqual(answers.ok('https://blog.example.com/h3'));
  });
});

describe('h3 1: verifyWebhook', () => {
  const verify = verifyWebhook(receiver());
  const route = defineEventHandler(async (event) => {
    const verified = await verify(event);
    if ('response' in verified) return verified.response;
    event.node.res.statusCode = 202;
    return { received: verified.event.type };
  });

  it.each([
    ['node:http', serve],
    ['toWebHandler', serveWeb],
  ])('on %s: resolves to the event, or to the contract answer as a Response', async (_host, host) => {
    const url = await host(createApp().use('/webhook', route));
    expect(await send(url, sync())).toMatchObject({ status: 202, body: { received: 'article.sync' } });
    const { headers, body } = sync();
    expect(await send(url, { headers: { ...headers, Authorization: 'Bearer no' }, body })).toEqual(
      answers.error(401, 'Invalid token'),
    );
  });
});
