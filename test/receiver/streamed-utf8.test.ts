import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler as expressHandler } from 'webhook-cms-receiver/express';
import { webhookHandler as nodeHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// Large bodies are decoded as UTF-8 while they stream in (alongside the streamed HMAC) and the
// core parses that text: these prove it is exactly as strict as decoding the whole body.

const token = 'streamed-utf8-token';
const encoder = new TextEncoder();
/** Characters of 1 to 4 UTF-8 bytes, so the chunk edges below fall inside characters. */
const PARAGRAPH = 'Référencement — « SEO ». 検索エンジン最適化 🚀 and plain ASCII. ';
const CONTENT = PARAGRAPH.repeat(3000); // about 210 KB of UTF-8

/** The signed bytes of an article.sync whose markdown is CONTENT, with `spoil` applied to the JSON bytes before signing. */
function delivery(spoil: (json: Uint8Array) => Uint8Array = (json) => json) {
  const json = encoder.encode(JSON.stringify(articleSyncPayload({ article: { content_markdown: CONTENT } })));
  return signDelivery({ token, payload: spoil(json) });
}

/** Inserts bytes inside the markdown text, far past the first chunk. */
const inserted = (bytes: number[]) => (json: Uint8Array) => {
  const at = json.length - 5000;
  return new Uint8Array([...json.subarray(0, at), ...bytes, ...json.subarray(at)]);
};

async function serve(app: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Writes the body in chunks of `size` bytes (a 4-byte character gets cut), then reads the answer. */
function post(port: number, signed: ReturnType<typeof signDelivery>, size: number) {
  const body = typeof signed.body === 'string' ? encoder.encode(signed.body) : signed.body;
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const headers = { ...signed.headers, 'Content-Length': String(body.length) };
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    const write = async () => {
      for (let offset = 0; offset < body.length; offset += size) {
        req.write(body.subarray(offset, offset + size));
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    };
    void write();
  });
}

describe.each([
  ['node:http', (receiver: Receiver, handlers: WebhookHandlers) => nodeHandler(receiver, handlers)],
  [
    'Express 5',
    (receiver: Receiver, handlers: WebhookHandlers) => express().post('/', expressHandler(receiver, handlers)),
  ],
] as const)('a large body through the %s adapter', (_adapter, appFor) => {
  const start = async () => {
    const seen: string[] = [];
    const handlers: WebhookHandlers = { 'article.sync': ({ article }) => void seen.push(article.content_markdown) };
    const app = appFor(createReceiver({ token }), handlers) as Parameters<typeof createServer>[1];
    return { port: await serve(app), seen };
  };

  it.each([65_536, 16_381, 4093])('reaches the handler with its exact text, sent in %i-byte chunks', async (size) => {
    const { port, seen } = await start();
    expect(await post(port, delivery(), size)).toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual([CONTENT]);
  });

  it.each([
    ['a stray continuation byte', [0x80]],
    ['a UTF-8 encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a character cut short', [0xf0, 0x9f, 0x9a]],
  ])('is refused 400 Invalid payload for %s, signed correctly', async (_what, bytes) => {
    const { port, seen } = await start();
    expect(await post(port, delivery(inserted(bytes)), 16_381)).toEqual({
      status: 400,
      body: { error: 'Invalid payload' },
    });
    expect(seen).toEqual([]);
  });

  it('is refused 400 Invalid payload when it starts with a byte-order mark', async () => {
    const { port } = await start();
    const bom = (json: Uint8Array) => new Uint8Array([0xef, 0xbb, 0xbf, ...json]);
    expect(await post(port, delivery(bom), 65_536)).toEqual({ status: 400, body: { error: 'Invalid payload' } });
  });

  it('is still refused 403 for a bad signature first, even when its bytes are not UTF-8', async () => {
    const { port } = await start();
    const signed = delivery(inserted([0xff]));
    const tampered = { ...signed, headers: { ...signed.headers, 'X-Service-Signature': `sha256=${'0'.repeat(64)}` } };
    expect(await post(port, tampered, 65_536)).toEqual({ status: 403, body: { error: 'Invalid signature' } });
  });
});

describe('the text decoded while streaming', () => {
  it('is not used for a body other than the one fed: that body is decoded whole', async () => {
    const valid = delivery();
    const invalid = delivery(inserted([0xff]));
    const receiver = createReceiver({ token });
    const admission = receiver.admit({ method: 'POST', headers: invalid.headers });
    if (!admission.admitted) throw new Error('refused');
    // Fed a valid large body one byte shorter than the invalid one that is then handed over.
    const hasher = admission.bodyHasher?.();
    expect(hasher).toBeDefined();
    const fed = valid.body as Uint8Array;
    expect(fed.length).toBe((invalid.body as Uint8Array).length - 1);
    hasher!.update(fed);
    expect(await admission.handle(invalid.body, {})).toEqual({ status: 400, body: { error: 'Invalid payload' } });
  });
});
