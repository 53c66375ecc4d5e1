import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { metrics, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { articleSyncPayload, type SignedDelivery, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { memorySdk } from './sdk.js';

// The Node SDK as a user runs it: a global tracer provider (with its context manager and W3C
// propagator) and the HTTP instrumentation, enabled before any server is made. The
// instrumentation patches `http.Server.prototype.emit` when `http` is next required, so a
// CommonJS require of it after `enable()` is what applies the patch here; Express and the
// server made below share that prototype.
const exporter = new InMemorySpanExporter();
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const { providers, points } = memorySdk();
const httpInstrumentation = new HttpInstrumentation({ enabled: false });

const token = 'whk_otel_express_token_c41d';
const secretText = 'Le brouillon confidentiel du mardi';
let instrumentation: ReturnType<typeof openTelemetry>;
let server: RunningServer;
let receiver: Receiver;

beforeAll(async () => {
  // Made before the SDK is registered, as an app's module scope often is: the providers are looked up per delivery.
  instrumentation = openTelemetry();
  tracerProvider.register();
  metrics.setGlobalMeterProvider(providers.meterProvider);
  httpInstrumentation.setTracerProvider(tracerProvider);
  httpInstrumentation.enable();
  const require = createRequire(import.meta.url);
  const http = require('node:http') as typeof import('node:http');
  const { default: express } = await import('express');
  // A small limit keeps the 413 below quick to send.
  receiver = createReceiver({ token, instrumentation, maxBodyBytes: 64 * 1024, logger: false, onError: () => {} });
  const handlers: WebhookHandlers = {
    'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
  };
  const { webhookHandler, verifyWebhook } = await import('webhook-cms-receiver/express');
  const app = express();
  app.post('/webhook', webhookHandler(receiver, handlers));
  // Every method reaches the adapter here, so the receiver itself answers 405.
  app.all('/any-method', webhookHandler(receiver, handlers));
  app.post('/verify-only', verifyWebhook(receiver), (_req, res) => {
    res.json({ ok: true });
  });
  server = await listen(http.createServer(app) as Server);
});

afterAll(async () => {
  await server?.close();
  httpInstrumentation.disable();
  await tracerProvider.shutdown();
  metrics.disable();
});

const post = (path: string, init: SignedDelivery) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: init.headers, body: init.body });

/** The HTTP server span the instrumentation made for the request whose target is `path`, and its webhook.receive child. */
function spansOf(path: string, before: number): { server: ReadableSpan; receive: ReadableSpan | undefined } {
  const spans = exporter.getFinishedSpans().slice(before);
  const serverSpans = spans.filter((span) => span.kind === SpanKind.SERVER);
  expect(serverSpans).toHaveLength(1);
  const serverSpan = serverSpans[0]!;
  expect(String(serverSpan.attributes['url.path'] ?? serverSpan.attributes['http.target'])).toBe(path);
  const receive = spans.find((span) => span.name === 'webhook.receive');
  return { server: serverSpan, receive };
}
const isChild = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

describe('openTelemetry() behind Express 5 with the Node SDK’s HTTP instrumentation', () => {
  it('webhook.receive is an INTERNAL child of the HTTP server span, webhook.handler its child; one server span only', async () => {
    const before = exporter.getFinishedSpans().length;
    const payload = articleSyncPayload({ article: { content_markdown: secretText, title: secretText } });
    const response = await post('/webhook', signDelivery({ token, payload, deliveryId: 'wire-processed' }));
    expect(response.status).toBe(200);
    await response.text();
    await tracerProvider.forceFlush();
    const { server: serverSpan, receive } = spansOf('/webhook', before);
    expect(receive).toBeDefined();
    expect(receive!.kind).toBe(SpanKind.INTERNAL);
    expect(isChild(receive!, serverSpan)).toBe(true);
    expect(receive!.attributes).toMatchObject({
      'webhook.event': 'article.sync',
      'webhook.delivery_id': 'wire-processed',
      'webhook.outcome': 'processed',
      'http.response.status_code': 200,
    });
    const handler = exporter.getFinishedSpans().find((span) => span.name === 'webhook.handler')!;
    expect(isChild(handler, receive!)).toBe(true);
    // The receive span ends before the answer is written, so the server span contains it.
    expect(serverSpan.attributes['http.response.status_code']).toBe(200);
  });

  it('a refusal made on the head alone (401 before the body is read) is a refused child span, not an error', async () => {
    const before = exporter.getFinishedSpans().length;
    const signed = signDelivery({ token: 'whk_not_the_token', payload: articleSyncPayload(), deliveryId: 'wire-401' });
    const response = await post('/webhook', signed);
    expect(response.status).toBe(401);
    await response.text();
    await tracerProvider.forceFlush();
    const { server: serverSpan, receive } = spansOf('/webhook', before);
    expect(isChild(receive!, serverSpan)).toBe(true);
    expect(receive!.attributes).toEqual({
      'webhook.outcome': 'refused',
      'webhook.refusal.code': 'invalid_token',
      'http.response.status_code': 401,
      'webhook.delivery_id': 'wire-401',
    });
    expect(receive!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('405 for another method, and 413 from Content-Length, are refusals on the head too', async () => {
    const before = exporter.getFinishedSpans().length;
    const response = await fetch(`${server.url}/any-method`, { method: 'PUT', body: '{}' });
    expect(response.status).toBe(405);
    await response.text();
    const big = signDelivery({ token, payload: 'x'.repeat(100 * 1024) });
    const tooLarge = await post('/webhook', big).catch(() => undefined);
    await tooLarge?.text().catch(() => undefined);
    await tracerProvider.forceFlush();
    const receives = exporter
      .getFinishedSpans()
      .slice(before)
      .filter((span) => span.name === 'webhook.receive');
    expect(receives.map((span) => span.attributes['webhook.refusal.code'])).toEqual([
      'method_not_allowed',
      'payload_too_large',
    ]);
    expect(receives.map((span) => span.attributes['http.response.status_code'])).toEqual([405, 413]);
  });

  it('verifyWebhook: the delivery ends as verified, with no status of its own', async () => {
    const before = exporter.getFinishedSpans().length;
    const response = await post(
      '/verify-only',
      signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'wire-v' }),
    );
    expect(response.status).toBe(200);
    await response.text();
    await tracerProvider.forceFlush();
    const { server: serverSpan, receive } = spansOf('/verify-only', before);
    expect(isChild(receive!, serverSpan)).toBe(true);
    expect(receive!.attributes).toEqual({
      'webhook.event': 'article.sync',
      'webhook.delivery_id': 'wire-v',
      'webhook.outcome': 'verified',
      'webhook.token.index': 0,
    });
  });

  it('metrics reach the global meter provider registered after openTelemetry() was made', async () => {
    const counted = (await points('webhook.deliveries')).points.map((p) => [p.attributes, p.value]);
    expect(counted).toEqual(
      expect.arrayContaining([
        [{ 'webhook.event': 'article.sync', 'webhook.outcome': 'processed' }, 1],
        [{ 'webhook.outcome': 'refused', 'webhook.refusal.code': 'invalid_token' }, 1],
        [{ 'webhook.outcome': 'refused', 'webhook.refusal.code': 'payload_too_large' }, 1],
        [{ 'webhook.outcome': 'refused', 'webhook.refusal.code': 'method_not_allowed' }, 1],
        [{ 'webhook.event': 'article.sync', 'webhook.outcome': 'verified' }, 1],
      ]),
    );
  });
});
