import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver, type WebhookEvent, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send, sendHeadersOnly, sendUnbounded, type Answer } from '../helpers/http-client.js';
import { answers, deliveryAt, MAX_BODY_BYTES, nowSeconds, TOKEN } from './deliveries.js';
import type { RunningServer } from '../helpers/listen.js';
import { rawExchange } from '../helpers/raw-socket.js';
import type { StartAdapter } from './servers.js';
import { HANG_GUARD_MS, nextConnectionClosed, repeatedDeliveryIdScenario, wireScenarios } from './wire-scenarios.js';

/** Handlers that record every event and answer with a URL derived from it. */
function recordingHandlers(overrides: WebhookHandlers = {}) {
  const events: WebhookEvent[] = [];
  const record = (event: WebhookEvent) => {
    events.push(event);
    return { publishedUrl: urlFor(event) };
  };
  const handlers: WebhookHandlers = { test: record, 'article.sync': record, 'article.trash': record, ...overrides };
  return { events, handlers, record };
}

function urlFor(event: WebhookEvent): string {
  return event.type === 'article.sync' || event.type === 'article.trash'
    ? `https://blog.example.com/${event.article.slug}`
    : 'https://blog.example.com/';
}

/** What differs between adapters without changing the contract they keep. */
export interface AdapterTraits {
  /** False for Fetch-style adapters, whose host and not the adapter reads the socket. Default true. */
  ownsSocket?: boolean;
  /** True for serverless bridges: the platform buffers the body, so nothing answers from headers alone. */
  buffersBody?: boolean;
  /**
   * True where the host parses every body as JSON before the handler (Google Cloud Functions'
   * framework): it answers a non-JSON body itself, so the rows that send filler bytes do not apply.
   */
  parsesJson?: boolean;
}

/**
 * The behaviour every adapter must share, run against a real server on 127.0.0.1. Each test
 * gets a fresh receiver (so a fresh dedup store) and server.
 *
 * @example
 * ```ts
 * adapterScenarios('Express 5', startExpress5);
 * ```
 */
export function adapterScenarios(name: string, start: StartAdapter, traits: AdapterTraits = {}): void {
  const ownsSocket = traits.ownsSocket ?? true;
  async function serve(handlers: WebhookHandlers): Promise<(outgoing: Parameters<typeof send>[1]) => Promise<Answer>> {
    const receiver = createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
    const server = await start(receiver, handlers);
    onTestFinished(() => server.close());
    endpoint = `${server.url}/webhook`;
    running = server;
    return (outgoing) => send(endpoint, outgoing);
  }
  let endpoint = '';
  let running: RunningServer | undefined;
  const serveForWire = async (handlers: WebhookHandlers) => {
    await serve(handlers);
    return { endpoint, running: running! };
  };
  if (ownsSocket && !traits.buffersBody) wireScenarios(name, serveForWire);
  describe(`${name}: repeated headers (contract v3)`, () => repeatedDeliveryIdScenario(name, serveForWire));

  describe(`${name}: accepted deliveries`, () => {
    it.each([
      ['test', testPayload(), 'https://blog.example.com/'],
      [
        'article.sync',
        articleSyncPayload({ article: { slug: 'hello-world' } }),
        'https://blog.example.com/hello-world',
      ],
      ['article.trash', articleTrashPayload({ article: { slug: 'old-post' } }), 'https://blog.example.com/old-post'],
    ])('accepts a signed %s delivery, runs its handler once and returns published_url', async (type, payload, url) => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      expect(await post(signDelivery({ token: TOKEN, payload }))).toEqual(answers.ok(url));
      expect(events.map((event) => event.type)).toEqual([type]);
    });

    it('answers a redelivery of the same id with the stored response and duplicate: true, without running the handler', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      const payload = articleSyncPayload({ article: { slug: 'twice' } });
      const first = await post(deliveryAt(payload, nowSeconds() - 30, 'delivery-twice'));
      // The service's retry: same body and id, fresh timestamp and signature.
      const again = await post(deliveryAt(payload, nowSeconds(), 'delivery-twice'));
      expect(first).toEqual(answers.ok('https://blog.example.com/twice'));
      expect(again).toEqual(answers.duplicate('https://blog.example.com/twice'));
      expect(events).toHaveLength(1);
    });

    it('accepts a 2 MiB article and hands the handler every byte of it', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      const html = `<p>${'x'.repeat(2 * 1024 * 1024)}</p>`;
      const answer = await post(
        signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'big', content_html: html } }) }),
      );
      expect(answer).toEqual(answers.ok('https://blog.example.com/big'));
      const [event] = events;
      expect(event?.type === 'article.sync' && event.article.content_html).toBe(html);
    });
  });

  describe(`${name}: refused deliveries`, () => {
    it('refuses a tampered body with 403 Invalid signature and runs no handler', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      const { headers, body } = signDelivery({
        token: TOKEN,
        payload: articleSyncPayload({ article: { title: 'Original' } }),
      });
      expect(await post({ headers, body: String(body).replace('Original', 'Forged!!') })).toEqual(
        answers.error(403, 'Invalid signature'),
      );
      expect(events).toHaveLength(0);
    });

    it('refuses a wrong token with 401 Invalid token and runs no handler', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      expect(await post(signDelivery({ token: 'not-the-token', payload: articleSyncPayload() }))).toEqual(
        answers.error(401, 'Invalid token'),
      );
      expect(events).toHaveLength(0);
    });

    it('refuses a timestamp older than the tolerance with 403 Request expired and runs no handler', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      expect(await post(deliveryAt(articleSyncPayload(), nowSeconds() - 301, 'stale'))).toEqual(
        answers.error(403, 'Request expired'),
      );
      expect(events).toHaveLength(0);
    });

    it('refuses GET with 405 and Allow: POST', async () => {
      const post = await serve(recordingHandlers().handlers);
      expect(await post({ method: 'GET' })).toEqual(answers.methodNotAllowed);
    });

    it.skipIf(traits.parsesJson)('refuses a body over maxBodyBytes declared by Content-Length with 413', async () => {
      const { events, handlers } = recordingHandlers();
      const post = await serve(handlers);
      const { headers } = signDelivery({ token: TOKEN, payload: testPayload() });
      expect(await post({ headers, body: new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20) })).toEqual(
        answers.error(413, 'Payload too large'),
      );
      expect(events).toHaveLength(0);
    });

    it.skipIf(traits.parsesJson)(
      'stops reading a chunked body without Content-Length once it passes maxBodyBytes and answers 413',
      async () => {
        const { handlers } = recordingHandlers();
        await serve(handlers);
        const { headers } = signDelivery({ token: TOKEN, payload: testPayload() });
        const answer = await sendUnbounded(endpoint, headers, 20 * MAX_BODY_BYTES);
        expect({ ...answer, bytesSent: undefined }).toEqual({
          ...answers.error(413, 'Payload too large'),
          bytesSent: undefined,
          exhausted: false,
        });
      },
    );

    it.skipIf(traits.buffersBody)(
      'answers an unauthenticated request declaring a huge body with 413 from its headers alone',
      async () => {
        await serve(recordingHandlers().handlers);
        const answer = await sendHeadersOnly(
          endpoint,
          { Authorization: 'Bearer wrong', 'Content-Type': 'application/json' },
          2 ** 30,
        );
        expect(answer).toEqual(answers.error(413, 'Payload too large'));
      },
    );

    it.skipIf(traits.buffersBody)('answers a wrong token with 401 before reading the body', async () => {
      await serve(recordingHandlers().handlers);
      const answer = await sendHeadersOnly(
        endpoint,
        { Authorization: 'Bearer wrong', 'Content-Type': 'application/json' },
        1000,
      );
      expect(answer).toEqual(answers.error(401, 'Invalid token'));
    });
  });

  describe(`${name}: hostile input (contract v2)`, () => {
    it.skipIf(traits.parsesJson)(
      'answers an endless chunked body with a wrong token 401, closes and reads under 1 MiB',
      async () => {
        await serve(recordingHandlers().handlers);
        const closedOnServer = running?.server && ownsSocket ? nextConnectionClosed(running.server) : undefined;
        const exchange = await rawExchange(
          endpoint,
          ['Authorization: Bearer wrong', 'Content-Type: application/json'],
          { endlessBody: true, giveUpMs: HANG_GUARD_MS },
        );
        expect(exchange.status).toBe(401);
        expect(exchange.text).toContain('{"error":"Invalid token"}');
        // The server closed the connection (the close event, not a deadline).
        expect(exchange.closedAfterMs).toBeDefined();
        // Only an adapter that owns the Node socket can stop the reading; a Fetch host on Node
        // (@hono/node-server drains up to 64 MiB or 500 ms on purpose) is held to the close alone.
        if (closedOnServer) expect(await closedOnServer).toBeLessThan(1024 * 1024);
      },
    );

    it.each([
      ['[good, bad]', true],
      ['[bad, good]', false],
    ])('refuses two Authorization headers %s with 401, whichever copy is good', async (_order, goodFirst) => {
      const { events, handlers } = recordingHandlers();
      await serve(handlers);
      const delivery = signDelivery({ token: TOKEN, payload: testPayload() });
      const good = `Authorization: Bearer ${TOKEN}`;
      const bad = 'Authorization: Bearer wrong';
      const rest = Object.entries(delivery.headers)
        .filter(([key]) => key !== 'Authorization')
        .map(([key, value]) => `${key}: ${value}`);
      const exchange = await rawExchange(endpoint, [...(goodFirst ? [good, bad] : [bad, good]), ...rest], {
        body: String(delivery.body),
      });
      expect(exchange.status).toBe(401);
      expect(events).toHaveLength(0);
    });
  });

  describe(`${name}: dedup and retries`, () => {
    it('runs the handler once for 12 concurrent copies and answers the others 409 while it runs', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { events, handlers, record } = recordingHandlers();
      const slow = async (event: WebhookEvent) => {
        const result = record(event);
        // Only the first run waits; a wrongly admitted second run would answer at once and show up in the counts.
        if (events.length === 1) await gate;
        return result;
      };
      const post = await serve({ ...handlers, 'article.sync': slow });
      const delivery = signDelivery({
        token: TOKEN,
        payload: articleSyncPayload({ article: { slug: 'racy' } }),
        deliveryId: 'delivery-racy',
      });
      let settled = 0;
      let elevenSettled!: () => void;
      const eleven = new Promise<void>((resolve) => (elevenSettled = resolve));
      const copies = Array.from({ length: 12 }, () =>
        post(delivery).finally(() => {
          if (++settled === 11) elevenSettled();
        }),
      );
      await eleven;
      release();
      const all = await Promise.all(copies);
      expect(all.map((answer) => answer.status).sort()).toEqual([200, ...Array(11).fill(409)]);
      expect(all.find((answer) => answer.status === 200)).toEqual(answers.ok('https://blog.example.com/racy'));
      expect(all.find((answer) => answer.status === 409)).toEqual(answers.error(409, 'Delivery in progress'));
      expect(events).toHaveLength(1);
    });

    it('answers 500 Handler failed when the handler throws, then 200 on the service retry', async () => {
      const { events, handlers, record } = recordingHandlers();
      const failOnce = (event: WebhookEvent) => {
        const result = record(event);
        if (events.length === 1) throw new Error('disk full');
        return result;
      };
      const post = await serve({ ...handlers, 'article.sync': failOnce });
      const payload = articleSyncPayload({ article: { slug: 'retried' } });
      expect(await post(deliveryAt(payload, nowSeconds() - 10, 'delivery-retried'))).toEqual(
        answers.error(500, 'Handler failed'),
      );
      expect(await post(deliveryAt(payload, nowSeconds(), 'delivery-retried'))).toEqual(
        answers.ok('https://blog.example.com/retried'),
      );
      expect(events).toHaveLength(2);
    });
  });
}
