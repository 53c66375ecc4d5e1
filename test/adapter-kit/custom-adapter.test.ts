import {
  connect,
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { serveRequest } from 'webhook-cms-receiver/adapter-kit';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// ---- An adapter for a framework we do not ship (node:http2's core stream API), written from
// ---- the adapter kit's documentation alone. It must stay under 40 lines.
// ADAPTER START
function http2WebhookHandler(receiver: Receiver, handlers: WebhookHandlers) {
  return async (stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> => {
    const answer = await serveRequest(receiver, { method: headers[':method'], headers, body: () => stream }, handlers);
    if (stream.destroyed || stream.headersSent) return;
    // HTTP/2 has no Connection header: a refusal before the body is read cancels the stream instead.
    const { connection: _none, ...rest } = answer.headers;
    stream.respond({ ':status': answer.status, ...rest });
    stream.end(answer.text);
    if (answer.close) stream.close(constants.NGHTTP2_CANCEL);
  };
}
// ADAPTER END

const token = 'whk_custom_adapter_token';

async function start(handlers: WebhookHandlers): Promise<string> {
  const server: Http2Server = createServer();
  const handler = http2WebhookHandler(createReceiver({ token }), handlers);
  server.on('stream', (stream, headers) => void handler(stream, headers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function post(origin: string, delivery: { headers: Record<string, string>; body: string | Uint8Array }) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const client = connect(origin);
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const request = client.request({ ':method': 'POST', ':path': '/webhook', ...headers });
    let status = 0;
    let text = '';
    request.on('response', (h) => (status = Number(h[':status'])));
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      client.close();
      resolve({ status, body: JSON.parse(text) });
    });
    request.on('error', reject);
    request.end(delivery.body);
  });
}

describe('the adapter kit is enough to write an adapter', () => {
  it('fits in under 40 lines', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL(import.meta.url), 'utf8');
    const adapter = source.slice(source.indexOf('// ADAPTER START'), source.indexOf('// ADAPTER END'));
    expect(adapter.split('\n').length - 2).toBeLessThan(40);
  });

  it('verifies, deduplicates and answers over HTTP/2 with every status from the core', async () => {
    const runs: string[] = [];
    const origin = await start({ 'article.sync': ({ article }) => void runs.push(article.slug) });
    const delivery = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'over-h2' } }) });
    expect(await post(origin, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(await post(origin, delivery)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    const tampered = { ...delivery, body: String(delivery.body).replace('over-h2', 'forged') };
    expect(await post(origin, tampered)).toEqual({ status: 403, body: { error: 'Invalid signature' } });
    const wrongToken = { ...delivery, headers: { ...delivery.headers, Authorization: 'Bearer nope' } };
    expect(await post(origin, wrongToken)).toEqual({ status: 401, body: { error: 'Invalid token' } });
    expect(runs).toEqual(['over-h2']);
  });
});
