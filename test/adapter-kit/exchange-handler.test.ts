import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, WebhookError } from 'webhook-cms-receiver';
import {
  type AlreadyParsed,
  type ExchangeBinding,
  exchangeHandler,
  exchangeVerifier,
  handedBody,
  isFetchRequest,
  serveRequest,
  toFetchResponse,
} from 'webhook-cms-receiver/adapter-kit';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_exchange_handler_token';

/** A host we do not ship: it calls the handler with `{ request }` and returns what it gets. */
type Input = { request?: unknown };
const binding: ExchangeBinding<Input, Response> = {
  name: 'Toy',
  exchange(input) {
    const { request } = input;
    if (request === 'not an http event')
      return new WebhookError('body_already_parsed', 'no request here: use the proxy');
    if (!isFetchRequest(request)) throw new TypeError('the toy host handed over no Request');
    return {
      request: { method: request.method, headers: request.headers, body: () => request },
      answer: toFetchResponse,
      refusal: toFetchResponse,
    };
  },
  fallback: toFetchResponse,
};

const receiver = () => createReceiver({ token });
const delivery = (slug: string) => signDelivery({ token, payload: articleSyncPayload({ article: { slug } }) });
const post = (signed: { headers: Record<string, string>; body: string | Uint8Array<ArrayBuffer> }) =>
  new Request('http://127.0.0.1/webhook', { method: 'POST', headers: signed.headers, body: signed.body });

/** Silences and records console.error for one test. */
function errorLog() {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map((call) => call.map(String).join(' ')).join('\n');
}

describe('exchangeHandler', () => {
  it('serves, deduplicates and refuses through the binding, every status from the core', async () => {
    const runs: string[] = [];
    const handler = exchangeHandler(binding, receiver(), {
      'article.sync': ({ article }) => void runs.push(article.slug),
    });
    const signed = delivery('through-a-binding');
    const first = await handler({ request: post(signed) });
    expect([first.status, await first.json()]).toEqual([200, { ok: true }]);
    const again = await handler({ request: post(signed) });
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    const wrong = await handler({
      request: post({ ...signed, headers: { ...signed.headers, Authorization: 'Bearer no' } }),
    });
    expect([wrong.status, await wrong.json()]).toEqual([401, { error: 'Invalid token' }]);
    expect(runs).toEqual(['through-a-binding']);
  });

  it('answers an input that is no request with its error, logging the reason', async () => {
    const log = errorLog();
    const answer = await exchangeHandler(binding, receiver())({ request: 'not an http event' });
    expect([answer.status, await answer.json()]).toEqual([500, { error: 'Server misconfigured' }]);
    expect(log()).toContain('no request here: use the proxy');
  });

  it('answers 500 and logs when translating throws, naming the adapter; never rejects', async () => {
    const log = errorLog();
    const answer = await exchangeHandler(binding, receiver())({});
    expect([answer.status, await answer.json()]).toEqual([500, { error: 'Internal error' }]);
    expect(log()).toContain('the toy host handed over no Request');
  });
});

describe('exchangeVerifier', () => {
  const verify = exchangeVerifier(binding, receiver(), 'response');

  it('resolves to the verified event', async () => {
    const verified = await verify({ request: post(delivery('verified')) });
    expect('event' in verified && verified.event.type).toBe('article.sync');
  });

  it('resolves to the refusal under the key, for the route to return', async () => {
    const signed = delivery('tampered');
    const verified = await verify({
      request: post({ ...signed, body: String(signed.body).replace('tampered', 'forged') }),
    });
    expect('response' in verified && verified.response.status).toBe(403);
  });

  it('puts the fallback answer under the key too', async () => {
    errorLog();
    const verified = await verify({ request: 'not an http event' });
    expect('response' in verified && verified.response.status).toBe(500);
  });
});

describe('handedBody', () => {
  const parsed: AlreadyParsed = { alreadyParsed: 'a toy parser', fix: 'Hand over the raw body.' };
  const used: AlreadyParsed = { alreadyParsed: 'a toy reader', fix: 'Read nothing first.' };

  it('hands bytes and text over as they are, an ArrayBuffer as its bytes, and nothing as undefined', () => {
    const bytes = new TextEncoder().encode('{}');
    expect(handedBody(bytes, parsed)).toBe(bytes);
    expect(handedBody('{}', parsed)).toBe('{}');
    expect(handedBody(bytes.buffer, parsed)).toEqual(bytes);
    expect(handedBody(undefined, parsed)).toBeUndefined();
    expect(handedBody(null, parsed)).toBeUndefined();
  });

  it('hands an unread stream over, a locked one as used, and a parsed object as parsed', () => {
    const stream = new Response('{}').body!;
    expect(handedBody(stream, parsed, used)).toBe(stream);
    stream.getReader();
    expect(handedBody(stream, parsed, used)).toBe(used);
    expect(handedBody({ article: {} }, parsed, used)).toBe(parsed);
  });

  it('is answered 500 with the fix when the body was parsed', async () => {
    const log = errorLog();
    const signed = delivery('parsed');
    const answer = await serveRequest(receiver(), {
      method: 'POST',
      headers: signed.headers,
      body: () => handedBody({}, parsed)!,
    });
    expect([answer.status, answer.body]).toEqual([500, { error: 'Server misconfigured' }]);
    expect(log()).toContain('Hand over the raw body.');
  });
});

describe('isFetchRequest', () => {
  it('tells a Fetch Request from a Node-style request and a bare stream', () => {
    expect(isFetchRequest(new Request('http://127.0.0.1/'))).toBe(true);
    expect(isFetchRequest({ method: 'POST', headers: {}, on() {} })).toBe(false);
    expect(isFetchRequest(new Response('{}').body)).toBe(false);
    expect(isFetchRequest(undefined)).toBe(false);
  });
});
