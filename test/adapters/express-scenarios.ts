import { createServer, type IncomingMessage } from 'node:http';
import type express from 'express';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/express';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send, sendUnbounded } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, JSON_TYPE, MAX_BODY_BYTES, TOKEN } from './deliveries.js';

type ExpressFactory = typeof express;

/**
 * What only the Express adapter has to get right: body parsers mounted before it, the raw
 * body left by other middleware, its `verifyWebhook`, and the Node request it must not destroy.
 *
 * @example
 * ```ts
 * expressScenarios('Express 5', express);
 * ```
 */
export function expressScenarios(name: string, express: ExpressFactory): void {
  const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });

  async function serve(app: ReturnType<ExpressFactory>): Promise<string> {
    const server = await listen(createServer(app));
    onTestFinished(() => server.close());
    return `${server.url}/webhook`;
  }

  function recorder() {
    const events: WebhookEvent[] = [];
    return { events, handlers: { 'article.sync': (event: WebhookEvent) => void events.push(event) } };
  }

  describe(`${name}: middleware around the adapter`, () => {
    it('answers 500 Server misconfigured and logs one line naming the fix when express.json() ran first', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      onTestFinished(() => errors.mockRestore());
      const { events, handlers } = recorder();
      const url = await serve(express().use(express.json()).post('/webhook', webhookHandler(receiver(), handlers)));
      const answer = await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }));
      expect(answer).toEqual(answers.error(500, 'Server misconfigured'));
      expect(events).toHaveLength(0);
      expect(errors).toHaveBeenCalledTimes(1);
      const line = String(errors.mock.calls[0]?.[0]);
      expect(line).toMatch(/before express\.json\(\)/);
      // The limit follows the receiver's maxBodyBytes (3 MiB here), not a hard-coded 10mb.
      expect(line).toMatch(/express\.raw\(\{ type: 'application\/json', limit: '3mb' \}\)/);
      expect(line).not.toContain(TOKEN);
    });

    it('accepts a 2 MiB article behind express.raw with the limit the README recommends', async () => {
      const { events, handlers } = recorder();
      const app = express().use(express.raw({ type: 'application/json', limit: '10mb' }));
      const url = await serve(app.post('/webhook', webhookHandler(receiver(), handlers)));
      const big = signDelivery({
        token: TOKEN,
        payload: articleSyncPayload({ article: { content_html: 'x'.repeat(2 * 1024 * 1024) } }),
      });
      expect(await send(url, big)).toEqual({
        status: 200,
        contentType: JSON_TYPE,
        allow: undefined,
        body: { ok: true },
      });
      expect(events).toHaveLength(1);
    });

    it('accepts deliveries behind express.raw({ type: "application/json" }) and still checks the signature', async () => {
      const { events, handlers } = recorder();
      const app = express().use(express.raw({ type: 'application/json' }));
      const url = await serve(app.post('/webhook', webhookHandler(receiver(), handlers)));
      const good = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      expect(await send(url, good)).toEqual({
        status: 200,
        contentType: JSON_TYPE,
        allow: undefined,
        body: { ok: true },
      });
      const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
      expect(await send(url, tampered)).toEqual(answers.error(403, 'Invalid signature'));
      expect(events).toHaveLength(1);
    });

    it('uses req.rawBody kept by express.json({ verify }) instead of failing as misconfigured', async () => {
      const { events, handlers } = recorder();
      const keepRaw = (req: IncomingMessage, _res: unknown, buf: Buffer) => {
        (req as { rawBody?: unknown }).rawBody = buf;
      };
      const url = await serve(
        express()
          .use(express.json({ verify: keepRaw }))
          .post('/webhook', webhookHandler(receiver(), handlers)),
      );
      expect((await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).status).toBe(200);
      expect(events).toHaveLength(1);
    });

    it('leaves the request stream open when it stops reading an oversized body, so the 413 reaches the client', async () => {
      const seen: IncomingMessage[] = [];
      const app = express().use((req, _res, next) => {
        seen.push(req);
        next();
      });
      const url = await serve(app.post('/webhook', webhookHandler(receiver(), {})));
      const { headers } = signDelivery({ token: TOKEN, payload: testPayload() });
      const answer = await sendUnbounded(url, headers, 20 * MAX_BODY_BYTES);
      expect(answer.status).toBe(413);
      // Destroying it mid-body lets Node's parser fail on the bytes still arriving and reset the socket.
      expect(seen[0]?.destroyed).toBe(false);
    });
  });

  describe(`${name}: hostile hosts (contract v2)`, () => {
    it('survives a middleware that answered 503 first, and serves the next delivery', async () => {
      const rejections: unknown[] = [];
      const onRejection = (reason: unknown) => void rejections.push(reason);
      process.on('unhandledRejection', onRejection);
      onTestFinished(() => void process.off('unhandledRejection', onRejection));
      const { events, handlers } = recorder();
      let first = true;
      const timeout = (_req: unknown, res: { status(code: number): { end(): void } }, next: () => void) => {
        // A timeout middleware: answers at once the first time, and lets the route run anyway.
        if (first) res.status(503).end();
        first = false;
        next();
      };
      const url = await serve(express().post('/webhook', timeout, webhookHandler(receiver(), handlers)));
      expect((await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const next = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      expect(await send(url, next)).toMatchObject({ status: 200 });
      expect(rejections).toEqual([]);
      // The second delivery ran; whether the first did depends on its body still being readable.
      expect(events.map((event) => event.deliveryId)).toContain(next.headers['X-Service-Delivery-Id']);
    });

    it('answers 500 Server misconfigured, not 403, behind express.text() with a latin1 charset', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      onTestFinished(() => errors.mockRestore());
      const { events, handlers } = recorder();
      const app = express().use(express.text({ type: '*/*', defaultCharset: 'latin1' }));
      const url = await serve(app.post('/webhook', webhookHandler(receiver(), handlers)));
      const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { title: 'Café 日本' } }) });
      const answer = await send(url, { ...delivery, headers: { ...delivery.headers, 'Content-Type': 'text/plain' } });
      expect(answer).toEqual(answers.error(500, 'Server misconfigured'));
      expect(events).toHaveLength(0);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(/express\.raw/);
    });
  });

  describe(`${name}: verifyWebhook`, () => {
    it('puts the verified event on req.webhookEvent and lets the route write its own answer', async () => {
      const app = express().post('/webhook', verifyWebhook(receiver()), (req, res) => {
        // No cast: the adapter augments Express's Request type.
        const event = req.webhookEvent;
        res
          .status(202)
          .json({ received: event?.type, slug: event?.type === 'article.sync' ? event.article.slug : null });
      });
      const url = await serve(app);
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

    it('answers a refused delivery itself and never calls the route', async () => {
      const route = vi.fn();
      const url = await serve(express().post('/webhook', verifyWebhook(receiver()), route));
      const answer = await send(
        url,
        signDelivery({ token: TOKEN, payload: articleSyncPayload(), timestamp: 1_000_000_000 }),
      );
      expect(answer).toEqual(answers.error(403, 'Request expired'));
      expect(route).not.toHaveBeenCalled();
    });
  });
}
