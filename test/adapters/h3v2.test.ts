import { createServer } from 'node:http';
import { defineEventHandler, defineHandler, H3, type H3Event, readBody, readRawBody } from 'h3';
import { toNodeHandler } from 'h3/node';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/h3';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { fetchServer } from '../helpers/fetch-bridge.js';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import { startH3v2, startH3v2Fetch } from './h3-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('h3 2 on node:http (toNodeHandler)', startH3v2);
adapterScenarios('h3 2 app.fetch on a Fetch host', startH3v2Fetch, { ownsSocket: false });

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
const publish = () => ({ publishedUrl: 'https://blog.example.com/h3' });
const sync = () => signDelivery({ token: TOKEN, payload: articleSyncPayload() });

/** The app on node:http and behind the Fetch bridge: the two ways h3 2 is served. */
const hosts = [
  ['node:http', (app: H3) => listen(createServer(toNodeHandler(app)))],
  ['a Fetch host', (app: H3) => listen(fetchServer(async (request) => app.fetch(request)))],
] as const;

async function serve(app: H3, host: (app: H3) => ReturnType<typeof listen>): Promise<string> {
  const server = await host(app);
  onTestFinished(() => server.close());
  return `${server.url}/webhook`;
}

function errorLog() {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map((call) => call.map(String).join(' ')).join('\n');
}

describe.each(hosts)('h3 2 on %s', (_host, host) => {
  it.each([
    ['readBody', (event: H3Event) => readBody(event)],
    ['readRawBody', (event: H3Event) => readRawBody(event)],
  ])('answers 500 Server misconfigured, not 403, after %s in a middleware, naming the fix', async (_name, read) => {
    const log = errorLog();
    const app = new H3()
      .use((event, next) => read(event).then(() => next()))
      .post('/webhook', webhookHandler(receiver(), {}));
    expect(await send(await serve(app, host), sync())).toEqual(answers.error(500, 'Server misconfigured'));
    expect(log()).toMatch(/readBody.*Read nothing from the event before the webhook handler/s);
  });

  it('works as a route wrapped in defineEventHandler or defineHandler, and as middleware on app.use', async () => {
    const webhook = webhookHandler(receiver(), { 'article.sync': publish });
    const apps = [
      new H3().post('/webhook', defineEventHandler(webhook)),
      new H3().post('/webhook', defineHandler({ handler: webhook })),
      new H3().use('/webhook', webhook),
    ];
    for (const app of apps) {
      expect(await send(await serve(app, host), sync())).toEqual(answers.ok('https://blog.example.com/h3'));
    }
  });

  it('verifyWebhook resolves to the event, or to the contract answer as a Response', async () => {
    const verify = verifyWebhook(receiver());
    const app = new H3().post('/webhook', async (event) => {
      const verified = await verify(event);
      if ('response' in verified) return verified.response;
      event.res.status = 202;
      return { received: verified.event.type };
    });
    const url = await serve(app, host);
    expect(await send(url, sync())).toMatchObject({ status: 202, body: { received: 'article.sync' } });
    const { headers, body } = sync();
    expect(await send(url, { headers: { ...headers, Authorization: 'Bearer no' }, body })).toEqual(
      answers.error(401, 'Invalid token'),
    );
  });
});
