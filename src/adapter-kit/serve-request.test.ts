import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  answerRequest,
  type CryptoProvider,
  createReceiver,
  type HttpAnswer,
  nodeCryptoProvider,
  serveRequest,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const TOKEN = 'whk_serve_request_test_token_0123456789';

/** node:crypto, counting which HMAC path verified: a whole body, or one streamed in. */
function counted() {
  const calls = { verify: 0, stream: 0, updates: 0 };
  const inner = nodeCryptoProvider();
  const crypto: CryptoProvider = {
    name: inner.name,
    hmacSha256(secret) {
      const hmac = inner.hmacSha256(secret);
      return {
        verify(prefix, body, expected) {
          calls.verify++;
          return hmac.verify(prefix, body, expected);
        },
        stream(prefix) {
          calls.stream++;
          const streamed = hmac.stream!(prefix);
          return {
            update(chunk: Uint8Array) {
              calls.updates++;
              streamed.update(chunk);
            },
            matches: (expected: Uint8Array) => streamed.matches(expected),
          };
        },
      };
    },
  };
  return { calls, receiver: createReceiver({ token: TOKEN, dedup: false, crypto }) };
}

async function* chunked(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

describe('serveRequest on a streamed body', () => {
  const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
  const bytes = new TextEncoder().encode(delivery.body as string);
  const declared = { ...delivery.headers, 'Content-Length': String(bytes.byteLength) };
  const halves = [bytes.subarray(0, 100), bytes.subarray(100)];
  const serve = (
    receiver: ReturnType<typeof counted>['receiver'],
    headers: Record<string, string>,
    parts: Uint8Array[],
  ) => serveRequest(receiver, { method: 'POST', headers, body: () => chunked(parts) }, { 'article.sync': () => {} });

  it('hashes a body that arrives whole in its first chunk once read, starting no streamed HMAC', async () => {
    const { calls, receiver } = counted();
    expect((await serve(receiver, declared, [bytes])).status).toBe(200);
    expect(calls).toEqual({ verify: 1, stream: 0, updates: 0 });
  });

  it('feeds the HMAC from the first chunk when the body comes in several', async () => {
    const { calls, receiver } = counted();
    expect((await serve(receiver, declared, halves)).status).toBe(200);
    expect(calls).toEqual({ verify: 0, stream: 1, updates: 2 });
  });

  it('streams a body with no Content-Length to compare its first chunk with', async () => {
    const { calls, receiver } = counted();
    expect((await serve(receiver, delivery.headers, [bytes])).status).toBe(200);
    expect(calls).toEqual({ verify: 0, stream: 1, updates: 1 });
  });

  it('answers a bad signature the same on both paths', async () => {
    const headers = { ...declared, 'X-Service-Signature': `sha256=${'0'.repeat(64)}` };
    for (const parts of [[bytes], halves]) {
      const { receiver } = counted();
      expect((await serve(receiver, headers, parts)).status).toBe(403);
    }
  });
});

describe('answerRequest on a real node:http server', () => {
  const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload() });

  /** Serves one delivery; `route` answers it, `atEnd` runs in the body's 'end' event after the kit's own listener. */
  async function exchange(
    route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    atEnd: (res: ServerResponse) => void = () => {},
  ): Promise<Response> {
    const server = createServer((req, res) => {
      void route(req, res);
      req.on('end', () => atEnd(res));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      return await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  const write = (res: ServerResponse) => (answer: HttpAnswer) =>
    res.writeHead(answer.status, answer.headers).end(answer.text);

  it("writes the answer inside the body's last event, with no promise turn before it", async () => {
    const receiver = createReceiver({ token: TOKEN, dedup: false });
    let writtenAtEnd: boolean | undefined;
    const response = await exchange(
      (req, res) =>
        answerRequest(receiver, { method: req.method, headers: req.headers, body: () => req }, { send: write(res) }),
      (res) => (writtenAtEnd = res.writableEnded),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(writtenAtEnd).toBe(true);
  });

  it('rejects its promise when send throws, after handling the delivery once', async () => {
    const receiver = createReceiver({ token: TOKEN, dedup: false });
    let handled = 0;
    let outcome: unknown;
    const response = await exchange(async (req, res) => {
      const request = { method: req.method, headers: req.headers, body: () => req };
      const send = () => {
        throw new Error('the host could not write');
      };
      outcome = await answerRequest(receiver, request, {
        handlers: { 'article.sync': () => void handled++ },
        send,
      }).catch((error: Error) => error.message);
      res.writeHead(503).end();
    });
    expect(response.status).toBe(503);
    expect(outcome).toBe('the host could not write');
    expect(handled).toBe(1);
  });

  it("hands an async handler's answer on once it settles", async () => {
    const receiver = createReceiver({ token: TOKEN, dedup: false });
    const handlers = { 'article.sync': async () => ({ publishedUrl: 'https://example.com/a' }) };
    const response = await exchange((req, res) =>
      answerRequest(
        receiver,
        { method: req.method, headers: req.headers, body: () => req },
        { handlers, send: write(res) },
      ),
    );
    expect(await response.json()).toEqual({ ok: true, published_url: 'https://example.com/a' });
  });
});
