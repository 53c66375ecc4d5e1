import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type CryptoProvider, createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { providers } from '../helpers/providers.js';
import { type Vector, vectors } from '../helpers/vectors.js';

/** A real provider whose calls are counted: which path verified, and how many chunks were fed. */
function counted(provider: CryptoProvider) {
  const calls = { verify: 0, stream: 0, updates: 0 };
  const wrapped: CryptoProvider = {
    name: provider.name,
    hmacSha256(secret) {
      const inner = provider.hmacSha256(secret);
      const stream = inner.stream?.bind(inner);
      return {
        verify(prefix, body, expected) {
          calls.verify++;
          return inner.verify(prefix, body, expected);
        },
        ...(stream && {
          stream(prefix: string) {
            calls.stream++;
            const hmac = stream(prefix);
            return {
              update(chunk: Uint8Array) {
                calls.updates++;
                hmac.update(chunk);
              },
              matches: (expected: Uint8Array) => hmac.matches(expected),
            };
          },
        }),
      };
    },
  };
  return { calls, provider: wrapped };
}

const handlers: WebhookHandlers = { 'article.sync': () => {}, 'article.trash': () => {}, test: () => {} };
const receiverFor = (vector: Vector, crypto: CryptoProvider) =>
  createReceiver({ token: vector.tokens, now: () => vector.now * 1000, crypto });
const thirds = (body: Uint8Array) =>
  [0, 1, 2].map((i) => body.subarray((i * body.length) / 3, ((i + 1) * body.length) / 3));

describe.each(providers)('streamed verification with %s', (name, provider) => {
  const streams = name === 'node:crypto';

  it.each(vectors.map((v) => [v.name, v] as const))('agrees with the one-shot path: %s', async (_n, vector) => {
    const oneShot = await receiverFor(vector, provider).handle(
      { headers: vector.headers, body: vector.body },
      handlers,
    );
    const { calls, provider: crypto } = counted(provider);
    const admission = receiverFor(vector, crypto).admit({ method: 'POST', headers: vector.headers });
    if (!admission.admitted) return expect(admission.answer).toEqual(oneShot);
    const hasher = admission.bodyHasher?.();
    for (const chunk of thirds(vector.body)) hasher?.update(chunk);
    expect(await admission.handle(vector.body, handlers)).toEqual(oneShot);
    expect(oneShot).toEqual({ status: vector.expect.status, body: expect.anything() });
    // A timestamp check 3 refuses gets no hasher; otherwise the provider decides.
    const usable = /^[0-9]+$/.test(vector.headers['X-Service-Timestamp'] ?? '');
    expect(calls.stream).toBe(streams && usable ? 1 : 0);
  });

  it.skipIf(!streams)('hashes a body of another length whole rather than trust the stream', async () => {
    const vector = vectors.find((v) => v.name === 'valid article.sync')!;
    const { calls, provider: crypto } = counted(provider);
    const admission = receiverFor(vector, crypto).admit({ method: 'POST', headers: vector.headers });
    if (!admission.admitted) throw new Error('the valid vector was refused');
    admission.bodyHasher?.()?.update(vector.body.subarray(1));
    expect(await admission.verify(vector.body)).toEqual({ event: expect.objectContaining({ type: 'article.sync' }) });
    expect(calls.verify).toBe(1);
  });

  it.skipIf(!streams)('uses a streamed HMAC for one verification only', async () => {
    const vector = vectors.find((v) => v.name === 'valid article.sync')!;
    const { calls, provider: crypto } = counted(provider);
    const admission = receiverFor(vector, crypto).admit({ method: 'POST', headers: vector.headers });
    if (!admission.admitted) throw new Error('the valid vector was refused');
    admission.bodyHasher?.()?.update(vector.body);
    expect('event' in (await admission.verify(vector.body))).toBe(true);
    expect('event' in (await admission.verify(vector.body))).toBe(true);
    expect(calls).toMatchObject({ stream: 1, verify: 1 });
  });
});

/** Starts `app` on 127.0.0.1 for one test. */
async function serve(app: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/**
 * Sends the body in three chunks, each only once the server has fed the one before to its
 * HMAC (at once where nothing streams: `fed` is then infinite), and reads the answer.
 */
function postInThirds(port: number, vector: Vector, fed: () => number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', headers: vector.headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    const chunks = thirds(vector.body);
    const next = async (i: number): Promise<void> => {
      if (i === chunks.length) return void req.end();
      req.write(chunks[i]);
      // Until the server fed this chunk to its HMAC, however loaded the machine: a server that
      // never does fails by the test's timeout (and by the count the test asserts).
      while (fed() < i + 1) await new Promise((r) => setTimeout(r, 2));
      return next(i + 1);
    };
    void next(0);
  });
}

describe.each([
  ['node:http', (receiver: Receiver) => nodeHandler(receiver, handlers)],
  ['Express 5', (receiver: Receiver) => express().post('/', expressHandler(receiver, handlers))],
] as const)('the %s adapter', (_adapter, appFor) => {
  const signed = vectors.filter((v) => v.expect.status !== 401 && v.headers['Content-Type']);

  it.each(signed.map((v) => [v.name, v] as const))('feeds the HMAC while the body arrives: %s', async (_n, vector) => {
    const { calls, provider: crypto } = counted(providers[0]![1]);
    const port = await serve(appFor(receiverFor(vector, crypto)) as Parameters<typeof createServer>[1]);
    const streamed = /^[0-9]+$/.test(vector.headers['X-Service-Timestamp'] ?? '');
    const answer = await postInThirds(port, vector, () => (streamed ? calls.updates : Number.POSITIVE_INFINITY));
    expect(answer).toEqual({ status: vector.expect.status, body: expect.anything() });
    if (vector.expect.error) expect(answer.body).toEqual({ error: vector.expect.error });
    // Every chunk went to the HMAC as it came, and the body was never hashed a second time.
    expect(calls).toEqual(streamed ? { stream: 1, updates: 3, verify: 0 } : { stream: 0, updates: 0, verify: 0 });
  });
});
