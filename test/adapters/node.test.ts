import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { verifyWebhook, webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { answers, deliveryAt, JSON_TYPE, MAX_BODY_BYTES, nowSeconds, TOKEN } from './deliveries.js';
import { h2rawExchange, h2send } from './h2-client.js';
import { startNode } from './node-servers.js';
import { adapterScenarios } from './scenarios.js';

adapterScenarios('node:http', startNode);

const receiver = () => createReceiver({ token: TOKEN, maxBodyBytes: MAX_BODY_BYTES });
const ok = { status: 200, contentType: JSON_TYPE, allow: undefined, body: { ok: true } };

function recorder() {
  const events: WebhookEvent[] = [];
  const handlers = {
    'article.sync': (event: WebhookEvent) => {
      events.push(event);
      return { publishedUrl: `https://blog.example.com/${event.type === 'article.sync' ? event.article.slug : ''}` };
    },
  };
  return { events, handlers };
}

/** Reads a whole Node request, as a host's body parser does before the route runs. */
async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = await listen(createServer(listener));
  onTestFinished(() => server.close());
  return server.url;
}

describe('node:http adapter on an http2 compat server (h2c)', () => {
  async function serveH2(handlers: ReturnType<typeof recorder>['handlers']): Promise<string> {
    const server = createH2Server(webhookHandler(receiver(), handlers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('accepts a signed delivery and answers a redelivery of its id as a duplicate', async () => {
    const { events, handlers } = recorder();
    const origin = await serveH2(handlers);
    const payload = articleSyncPayload({ article: { slug: 'over-h2' } });
    const first = await h2send(origin, '/webhook', deliveryAt(payload, nowSeconds() - 5, 'delivery-h2'));
    const again = await h2send(origin, '/webhook', deliveryAt(payload, nowSeconds(), 'delivery-h2'));
    expect(first).toEqual(answers.ok('https://blog.example.com/over-h2'));
    expect(again).toEqual(answers.duplicate('https://blog.example.com/over-h2'));
    expect(events).toHaveLength(1);
  });

  it('refuses a wrong token, a tampered body, GET and an oversized body as over HTTP/1.1', async () => {
    const { events, handlers } = recorder();
    const origin = await serveH2(handlers);
    const good = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
    const wrongToken = signDelivery({ token: 'not-the-token', payload: articleSyncPayload() });
    const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
    const oversized = { headers: good.headers, body: new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20) };
    expect([
      await h2send(origin, '/webhook', wrongToken),
      await h2send(origin, '/webhook', tampered),
      await h2send(origin, '/webhook', { method: 'GET' }),
      await h2send(origin, '/webhook', oversized),
    ]).toEqual([
      answers.error(401, 'Invalid token'),
      answers.error(403, 'Invalid signature'),
      answers.methodNotAllowed,
      answers.error(413, 'Payload too large'),
    ]);
    expect(events).toHaveLength(0);
  });

  it('sends no connection-specific header over HTTP/2, so Node prints no warning', async () => {
    // RFC 9113 §8.2.2 forbids them; Node's compat API drops `connection` with an UnsupportedWarning.
    const warnings: string[] = [];
    const listener = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', listener);
    onTestFinished(() => void process.off('warning', listener));
    const origin = await serveH2(recorder().handlers);
    const wrongToken = signDelivery({ token: 'not-the-token', payload: articleSyncPayload() });
    expect(await h2send(origin, '/webhook', wrongToken)).toEqual(answers.error(401, 'Invalid token'));
    expect(await h2send(origin, '/webhook', { method: 'GET' })).toEqual(answers.methodNotAllowed);
    // process.emitWarning reports on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });

  it.each([
    ['[good, bad]', true],
    ['[bad, good]', false],
  ])(
    'refuses two authorization headers %s with 401 (Node keeps only the first in req.headers)',
    async (_order, goodFirst) => {
      const { events, handlers } = recorder();
      const origin = await serveH2(handlers);
      const delivery = signDelivery({ token: TOKEN, payload: testPayload() });
      const good: [string, string] = ['authorization', `Bearer ${TOKEN}`];
      const bad: [string, string] = ['authorization', 'Bearer wrong'];
      const rest = Object.entries(delivery.headers)
        .filter(([name]) => name !== 'Authorization')
        .map(([name, value]): [string, string] => [name.toLowerCase(), value]);
      const text = await h2rawExchange(
        origin,
        '/webhook',
        [...(goodFirst ? [good, bad] : [bad, good]), ...rest],
        String(delivery.body),
      );
      expect(/\{"[\s\S]*\}/.exec(text)?.[0]).toBe('{"error":"Invalid token"}');
      expect(events).toHaveLength(0);
    },
  );
});

describe('node:http adapter behind hosts that read the body first', () => {
  it('uses req.rawBody kept by the host, as Google Cloud Functions and Firebase do, and still checks it', async () => {
    const { events, handlers } = recorder();
    const handler = webhookHandler(receiver(), handlers);
    // What the Functions Framework does before the function runs: keep the bytes, parse the JSON.
    const url = await serve(async (req, res) => {
      const rawBody = await readAll(req);
      Object.assign(req, { rawBody, body: JSON.parse(rawBody.toString('utf8')) });
      await handler(req, res);
    });
    const good = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'gcf' } }) });
    expect(await send(url, good)).toEqual(answers.ok('https://blog.example.com/gcf'));
    const tampered = { headers: good.headers, body: String(good.body).replace('"published"', '"archived"') };
    expect(await send(url, tampered)).toEqual(answers.error(403, 'Invalid signature'));
    expect(events).toHaveLength(1);
  });

  it('answers 500 Server misconfigured and logs the Next.js fix when req.body was parsed and no raw bytes kept', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const { events, handlers } = recorder();
    const handler = webhookHandler(receiver(), handlers);
    // What a Next.js pages API route does unless told `bodyParser: false`.
    const url = await serve(async (req, res) => {
      Object.assign(req, { body: JSON.parse((await readAll(req)).toString('utf8')) });
      await handler(req, res);
    });
    expect(await send(url, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).toEqual(
      answers.error(500, 'Server misconfigured'),
    );
    expect(events).toHaveLength(0);
    expect(errors).toHaveBeenCalledTimes(1);
    const line = String(errors.mock.calls[0]?.[0]);
    expect(line).toContain('export const config = { api: { bodyParser: false } }');
    expect(line).not.toContain(TOKEN);
  });
});

describe('node:http verifyWebhook', () => {
  it('resolves to the verified event and leaves the answer to the caller', async () => {
    const verify = verifyWebhook(receiver());
    const url = await serve(async (req, res) => {
      const event = await verify(req, res);
      if (event) res.writeHead(202, { 'content-type': JSON_TYPE }).end(JSON.stringify({ received: event.type }));
    });
    const answer = await send(url, signDelivery({ token: TOKEN, payload: testPayload() }));
    expect(answer).toEqual({ ...ok, status: 202, body: { received: 'test' } });
  });

  it('answers a refused delivery itself and resolves to undefined', async () => {
    const verify = verifyWebhook(receiver());
    const resolved: unknown[] = [];
    const url = await serve(async (req, res) => {
      resolved.push(await verify(req, res));
    });
    const expired = signDelivery({ token: TOKEN, payload: testPayload(), timestamp: 1_000_000_000 });
    expect(await send(url, expired)).toEqual(answers.error(403, 'Request expired'));
    expect(resolved).toEqual([undefined]);
  });
});
