import type fastify from 'fastify';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler, webhookPlugin } from 'webhook-cms-receiver/fastify';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, JSON_TYPE, MAX_BODY_BYTES, TOKEN } from './deliveries.js';

/** Fastify 5's factory; Fastify 4's is passed as the same type (the calls made here exist in both). */
export type FastifyFactory = typeof fastify;
type App = ReturnType<FastifyFactory>;

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });

function recorder() {
  const events: WebhookEvent[] = [];
  return { events, handlers: { 'article.sync': (event: WebhookEvent) => void events.push(event) } };
}

/** Starts the app on 127.0.0.1 and returns its base URL. */
async function serve(app: App): Promise<string> {
  await app.ready();
  const server = await listen(app.server);
  onTestFinished(() => server.close());
  return server.url;
}

/** A JSON route of the app's own, answering what Fastify's JSON parser made of the body. */
const echo = async (request: { body: unknown }) => ({ parsed: request.body });
const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
const ok = { status: 200, contentType: JSON_TYPE, allow: undefined, body: { ok: true } };

/** Gives a scope of the app the buffer parser the adapter's log line recommends. */
function rawJson(scope: App): void {
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_request: unknown, body: Buffer, done: (error: Error | null, body?: Buffer) => void) => done(null, body),
  );
}

/**
 * What only the Fastify adapter has to get right: the plugin's encapsulated parser, the
 * app's JSON parser elsewhere, routes behind parsers of the app's own, and `verifyWebhook`.
 *
 * @example
 * ```ts
 * fastifyScenarios('Fastify 5', fastify);
 * ```
 */
export function fastifyScenarios(name: string, factory: FastifyFactory): void {
  describe(`${name}: webhookPlugin`, () => {
    it("keeps the app's JSON parser on routes registered before and after it", async () => {
      const { events, handlers } = recorder();
      const app = factory().post('/before', echo);
      await app.register(webhookPlugin, { receiver: receiver(), handlers, path: '/webhook' });
      app.post('/after', echo);
      const url = await serve(app);
      expect((await send(`${url}/before`, json({ a: 1 }))).body).toEqual({ parsed: { a: 1 } });
      expect(await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(ok);
      expect((await send(`${url}/after`, json({ b: [2] }))).body).toEqual({ parsed: { b: [2] } });
      expect(events).toHaveLength(1);
    });

    it('serves its route under the register prefix and answers PUT, PATCH, DELETE and HEAD with 405', async () => {
      const app = factory();
      await app.register(webhookPlugin, { receiver: receiver(), handlers: {}, prefix: '/hooks' });
      const url = `${await serve(app)}/hooks/webhook`;
      expect(await send(url, signDelivery({ token: TOKEN, payload: testPayload() }))).toEqual(ok);
      for (const method of ['PUT', 'PATCH'])
        expect(await send(url, { method, ...json({}) }), method).toEqual(answers.methodNotAllowed);
      expect(await send(url, { method: 'DELETE' })).toEqual(answers.methodNotAllowed);
      const head = await fetch(url, { method: 'HEAD' });
      expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST']);
    });

    it('reads the raw bytes whatever the content type says, or without one', async () => {
      const { events, handlers } = recorder();
      const app = factory();
      await app.register(webhookPlugin, { receiver: receiver(), handlers });
      const url = `${await serve(app)}/webhook`;
      const asText = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { title: 'Café 日本' } }) });
      const text = await send(url, { ...asText, headers: { ...asText.headers, 'Content-Type': 'text/plain' } });
      const untyped = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      const { 'Content-Type': _dropped, ...noType } = untyped.headers;
      expect([text, await send(url, { headers: noType, body: untyped.body })]).toEqual([ok, ok]);
      expect(events).toHaveLength(2);
    });

    it("writes its answers through the reply, so the app's onSend hooks and log see them", async () => {
      const app = factory();
      app.addHook('onSend', async (_request, reply) => {
        reply.header('x-request-log', 'seen');
      });
      await app.register(webhookPlugin, { receiver: receiver(), handlers: {} });
      const url = `${await serve(app)}/webhook`;
      const { headers, body } = signDelivery({ token: TOKEN, payload: testPayload() });
      const answer = await fetch(url, { method: 'POST', headers, body });
      expect([answer.status, answer.headers.get('x-request-log'), await answer.json()]).toEqual([
        200,
        'seen',
        { ok: true },
      ]);
    });
  });

  describe(`${name}: routes with parsers of the app's own`, () => {
    it('answers 500 Server misconfigured and logs one line naming the Fastify fix behind the JSON parser', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      onTestFinished(() => errors.mockRestore());
      const { events, handlers } = recorder();
      const url = await serve(factory().post('/webhook', webhookHandler(receiver(), handlers)));
      const answer = await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: articleSyncPayload() }));
      expect(answer).toEqual(answers.error(500, 'Server misconfigured'));
      expect(events).toHaveLength(0);
      expect(errors).toHaveBeenCalledTimes(1);
      const line = String(errors.mock.calls[0]?.[0]);
      expect(line).toContain('app.register(webhookPlugin, { receiver, handlers, path:');
      // The limit follows the receiver's maxBodyBytes (3 MiB here).
      expect(line).toContain(`addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 3145728 }`);
      expect(line).not.toContain(TOKEN);
    });

    it('accepts deliveries behind the buffer parser the fix names, in a scope of its own, and checks them', async () => {
      const { events, handlers } = recorder();
      const app = factory().post('/echo', echo);
      await app.register(async (scope) => {
        rawJson(scope);
        scope.post('/webhook', webhookHandler(receiver(), handlers));
      });
      const url = await serve(app);
      const good = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      expect(await send(`${url}/webhook`, good)).toEqual(ok);
      const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
      expect(await send(`${url}/webhook`, tampered)).toEqual(answers.error(403, 'Invalid signature'));
      expect((await send(`${url}/echo`, json({ still: 'parsed' }))).body).toEqual({ parsed: { still: 'parsed' } });
      expect(events).toHaveLength(1);
    });

    it('uses raw bytes kept on request.rawBody beside a parsed body (NestJS rawBody: true, fastify-raw-body)', async () => {
      const { events, handlers } = recorder();
      const app = factory();
      app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
        (request as { rawBody?: Buffer }).rawBody = body as Buffer;
        done(null, JSON.parse(String(body)));
      });
      const url = await serve(app.post('/webhook', webhookHandler(receiver(), handlers)));
      expect(await send(`${url}/webhook`, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(ok);
      expect(events).toHaveLength(1);
    });
  });

  describe(`${name}: verifyWebhook`, () => {
    async function verifyingApp(route: (event: WebhookEvent | undefined) => unknown): Promise<string> {
      const app = factory();
      await app.register(async (scope) => {
        rawJson(scope);
        scope.post('/webhook', { preHandler: verifyWebhook(receiver()) }, async (request, reply) => {
          // No cast: the adapter augments Fastify's request type.
          reply.code(202);
          return route(request.webhookEvent);
        });
      });
      return `${await serve(app)}/webhook`;
    }

    it('puts the verified event on request.webhookEvent and lets the route answer', async () => {
      const url = await verifyingApp((event) => ({
        received: event?.type,
        slug: event?.type === 'article.sync' ? event.article.slug : null,
      }));
      const answer = await send(
        url,
        signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'mine' } }) }),
      );
      expect(answer).toEqual({
        status: 202,
        contentType: JSON_TYPE,
        allow: undefined,
        body: { received: 'article.sync', slug: 'mine' },
      });
    });

    it('answers refused deliveries itself and never runs the route', async () => {
      const route = vi.fn(() => ({ ran: true }));
      const url = await verifyingApp(route);
      const expired = signDelivery({ token: TOKEN, payload: articleSyncPayload(), timestamp: 1_000_000_000 });
      expect(await send(url, expired)).toEqual(answers.error(403, 'Request expired'));
      const wrongToken = signDelivery({ token: 'not-the-token', payload: articleSyncPayload() });
      expect(await send(url, wrongToken)).toEqual(answers.error(401, 'Invalid token'));
      expect(route).not.toHaveBeenCalled();
    });
  });
}
