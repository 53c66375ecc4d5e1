import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DedupStore,
  memoryDedupStore,
  type ReceiverSettings,
  withQueueMode,
} from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { enableContext, memorySdk } from './sdk.js';

const token = 'whk_otel_outcomes_token_5b2e';
const quiet = { logger: false as const, onError: () => {} };

let disableContext: () => void;
beforeAll(() => {
  disableContext = enableContext();
});
afterAll(() => disableContext());

let sdk = memorySdk();
afterEach(async () => {
  await sdk.shutdown();
  sdk = memorySdk();
});

function receiver(options: Partial<ReceiverSettings> = {}) {
  return createReceiver({ token, ...quiet, ...options, instrumentation: openTelemetry(sdk.providers) });
}
const named = (name: string) => sdk.spans().filter((span) => span.name === name);
const only = (name: string): ReadableSpan => {
  const spans = named(name);
  expect(spans).toHaveLength(1);
  return spans[0]!;
};
const isChild = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

describe('openTelemetry(): one span and one count per delivery, through handle()', () => {
  it('processed: webhook.receive with its attributes, webhook.handler as its child, active around the handler', async () => {
    const payload = articleSyncPayload();
    let active: string | undefined;
    const answer = await receiver().handle(signDelivery({ token, payload, deliveryId: 'd-processed' }), {
      'article.sync': () => {
        active = trace.getActiveSpan()?.spanContext().spanId;
        return { publishedUrl: 'https://blog.example.com/p' };
      },
    });
    expect(answer.status).toBe(200);
    const receive = only('webhook.receive');
    const handler = only('webhook.handler');
    expect(receive.kind).toBe(SpanKind.INTERNAL);
    expect(receive.attributes).toEqual({
      'webhook.event': 'article.sync',
      'webhook.delivery_id': 'd-processed',
      'webhook.outcome': 'processed',
      'webhook.token.index': 0,
      'http.response.status_code': 200,
    });
    expect(receive.status.code).toBe(SpanStatusCode.UNSET);
    expect(isChild(handler, receive)).toBe(true);
    expect(handler.kind).toBe(SpanKind.INTERNAL);
    expect(handler.attributes).toEqual({ 'webhook.event': 'article.sync' });
    expect(active).toBe(handler.spanContext().spanId);
    expect((await sdk.points('webhook.deliveries')).points).toEqual([
      { attributes: { 'webhook.event': 'article.sync', 'webhook.outcome': 'processed' }, value: 1 },
    ]);
  });

  it('an asynchronous handler: its span ends when it settles, and its duration is measured', async () => {
    let activeAfterAwait: string | undefined;
    await receiver().handle(signDelivery({ token, payload: articleSyncPayload() }), {
      'article.sync': async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        activeAfterAwait = trace.getActiveSpan()?.spanContext().spanId;
      },
    });
    const handler = only('webhook.handler');
    expect(activeAfterAwait).toBe(handler.spanContext().spanId);
    const ms = handler.duration[0] * 1000 + handler.duration[1] / 1e6;
    expect(ms).toBeGreaterThanOrEqual(25);
    const { unit, points } = await sdk.points('webhook.handler.duration');
    expect(unit).toBe('s');
    expect(points).toHaveLength(1);
    expect(points[0]!.attributes).toEqual({ 'webhook.event': 'article.sync', 'webhook.outcome': 'processed' });
    const histogram = points[0]!.value as Histogram;
    expect(histogram.count).toBe(1);
    expect(histogram.sum).toBeGreaterThanOrEqual(0.025);
    expect(histogram.buckets.boundaries.at(-1)).toBe(10);
  });

  it('duplicate: a second copy is answered from the store, without a handler span', async () => {
    const r = receiver();
    const payload = articleSyncPayload();
    const handlers = { 'article.sync': () => {} };
    await r.handle(signDelivery({ token, payload, deliveryId: 'd-dup' }), handlers);
    const again = await r.handle(signDelivery({ token, payload, deliveryId: 'd-dup' }), handlers);
    expect(again.body).toMatchObject({ duplicate: true });
    const receives = named('webhook.receive');
    expect(receives.map((span) => span.attributes['webhook.outcome'])).toEqual(['processed', 'duplicate']);
    expect(receives[1]!.attributes['webhook.delivery_id']).toBe('d-dup');
    expect(named('webhook.handler')).toHaveLength(1);
    expect(
      (await sdk.points('webhook.deliveries')).points.map((p) => [p.attributes['webhook.outcome'], p.value]),
    ).toEqual([
      ['processed', 1],
      ['duplicate', 1],
    ]);
  });

  it('in_progress: a copy arriving while the first runs is a 409, not an error', async () => {
    const r = receiver();
    const payload = articleSyncPayload();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handlers = { 'article.sync': () => gate };
    const first = r.handle(signDelivery({ token, payload, deliveryId: 'd-busy' }), handlers);
    const second = await r.handle(signDelivery({ token, payload, deliveryId: 'd-busy' }), handlers);
    expect(second.status).toBe(409);
    release();
    await first;
    const busy = named('webhook.receive').find((span) => span.attributes['webhook.outcome'] === 'in_progress')!;
    expect(busy.attributes['http.response.status_code']).toBe(409);
    expect(busy.attributes['webhook.refusal.code']).toBeUndefined();
    expect(busy.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('stale: an older delivery for an article already applied, with ordering on', async () => {
    const r = receiver({ ordering: true });
    const now = Math.floor(Date.now() / 1000);
    const article = articleSyncPayload().article;
    const newer = articleSyncPayload({ timestamp: now, article });
    const older = articleSyncPayload({ timestamp: now - 30, article });
    await r.handle(signDelivery({ token, payload: newer, deliveryId: 'd-new' }), {});
    const answer = await r.handle(signDelivery({ token, payload: older, deliveryId: 'd-old' }), {});
    const handledBy = Date.now() / 1000;
    expect(answer.body).toMatchObject({ stale: true });
    const stale = named('webhook.receive').find((span) => span.attributes['webhook.delivery_id'] === 'd-old')!;
    expect(stale.attributes['webhook.outcome']).toBe('stale');
    // Lag is receipt time minus the envelope timestamp: about 30 s for the older one.
    const lag = (await sdk.points('webhook.delivery.lag')).points[0]!.value as Histogram;
    expect(lag.count).toBe(2);
    expect(lag.sum).toBeGreaterThanOrEqual(30);
    // Each receipt came before handledBy, however slow the machine: no fixed margin.
    expect(lag.sum).toBeLessThanOrEqual(30 + 2 * (handledBy - now));
  });

  it('queued: queue mode answers at once, without a handler span; a redelivery of a queued job is a duplicate', async () => {
    const r = receiver({ queue: withQueueMode({ enqueue: async () => {} }) });
    const payload = articleSyncPayload();
    expect((await r.handle(signDelivery({ token, payload, deliveryId: 'd-queued' }))).body).toEqual({
      ok: true,
      queued: true,
    });
    await r.handle(signDelivery({ token, payload, deliveryId: 'd-queued' }));
    expect(named('webhook.receive').map((span) => span.attributes['webhook.outcome'])).toEqual(['queued', 'duplicate']);
    expect(named('webhook.handler')).toHaveLength(0);
    // The enqueue's own PRODUCER span, whose context the job carries to the worker.
    const enqueues = named('webhook.enqueue');
    expect(enqueues.map((span) => [span.kind, span.attributes['webhook.outcome']])).toEqual([
      [SpanKind.PRODUCER, 'queued'],
      [SpanKind.PRODUCER, 'duplicate'],
    ]);
    expect(enqueues[0]!.attributes['webhook.delivery_id']).toBe('d-queued');
  });

  it('refused: the code and status, the unverified delivery id, and no error status', async () => {
    const r = receiver();
    const bad = signDelivery({ token: 'whk_some_other_token', payload: articleSyncPayload(), deliveryId: 'd-bad' });
    expect((await r.handle(bad, {})).status).toBe(401);
    const tampered = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-tampered' });
    expect((await r.handle({ ...tampered, body: `${tampered.body} ` }, {})).status).toBe(403);
    const [unauthorized, forged] = named('webhook.receive');
    expect(unauthorized!.attributes).toEqual({
      'webhook.outcome': 'refused',
      'webhook.refusal.code': 'invalid_token',
      'http.response.status_code': 401,
      'webhook.delivery_id': 'd-bad',
    });
    expect(forged!.attributes['webhook.refusal.code']).toBe('invalid_signature');
    for (const span of [unauthorized!, forged!]) expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(named('webhook.handler')).toHaveLength(0);
    const counts = (await sdk.points('webhook.deliveries')).points;
    expect(counts.map((p) => p.attributes)).toEqual([
      { 'webhook.outcome': 'refused', 'webhook.refusal.code': 'invalid_token' },
      { 'webhook.outcome': 'refused', 'webhook.refusal.code': 'invalid_signature' },
    ]);
    // The signature was checked (and failed): its time is measured by code.
    const verify = (await sdk.points('webhook.verify.duration')).points;
    expect(verify.map((p) => p.attributes)).toEqual([
      { 'webhook.refusal.code': 'invalid_token' },
      { 'webhook.refusal.code': 'invalid_signature' },
    ]);
  });

  it('failed: a handler that throws sets the error status on both spans, with the code and the class only', async () => {
    const answer = await receiver().handle(signDelivery({ token, payload: articleSyncPayload() }), {
      'article.sync': () => {
        throw new RangeError('could not save "a secret title"');
      },
    });
    expect(answer.status).toBe(500);
    const receive = only('webhook.receive');
    const handler = only('webhook.handler');
    expect(receive.attributes).toMatchObject({
      'webhook.outcome': 'failed',
      'http.response.status_code': 500,
      'error.type': 'handler_failed',
    });
    expect(receive.attributes['webhook.refusal.code']).toBeUndefined();
    expect(receive.status).toEqual({ code: SpanStatusCode.ERROR, message: 'handler_failed' });
    expect(handler.status.code).toBe(SpanStatusCode.ERROR);
    expect(handler.attributes['error.type']).toBe('RangeError');
    expect(handler.events).toEqual([]);
    const duration = (await sdk.points('webhook.handler.duration')).points;
    expect(duration.map((p) => p.attributes['webhook.outcome'])).toEqual(['failed']);
  });

  it('failed: a store that cannot claim is dedup_unavailable, with no handler span', async () => {
    const store: DedupStore = {
      claim: () => Promise.reject(new Error('connection reset')),
      complete: () => {},
      release: () => {},
    };
    expect(
      (await receiver({ dedup: store }).handle(signDelivery({ token, payload: articleSyncPayload() }), {})).status,
    ).toBe(503);
    expect(only('webhook.receive').attributes).toMatchObject({
      'webhook.outcome': 'failed',
      'error.type': 'dedup_unavailable',
    });
    expect(named('webhook.handler')).toHaveLength(0);
  });

  it('failed: a handler past its deadline is handler_timeout, and its span ends with the delivery', async () => {
    const answer = await receiver({ handlerTimeoutMs: 50, dedup: memoryDedupStore() }).handle(
      signDelivery({ token, payload: articleSyncPayload() }),
      { 'article.sync': () => new Promise(() => {}) },
    );
    expect(answer.status).toBe(500);
    expect(only('webhook.receive').attributes['error.type']).toBe('handler_timeout');
    expect(only('webhook.handler').attributes['error.type']).toBe('handler_timeout');
  });

  it('webhook.token.index says which token signed the delivery (1: the second)', async () => {
    await createReceiver({
      token: ['whk_current_token_1', token],
      ...quiet,
      instrumentation: openTelemetry(sdk.providers),
    }).handle(signDelivery({ token, payload: testPayload() }), {});
    expect(only('webhook.receive').attributes['webhook.token.index']).toBe(1);
  });

  it('tenant mode: webhook.tenant.id on the span, never on a metric', async () => {
    const tenant = { id: 'site-otel', token: 'whk_tenant_otel_token' };
    await createReceiver({
      tenants: () => tenant,
      ...quiet,
      instrumentation: openTelemetry(sdk.providers),
    }).handle(signDelivery({ token: tenant.token, payload: testPayload() }), {});
    expect(only('webhook.receive').attributes['webhook.tenant.id']).toBe('site-otel');
    const metrics = JSON.stringify((await sdk.metrics()).scopeMetrics.flatMap((scope) => scope.metrics));
    expect(metrics).toContain('webhook.deliveries');
    expect(metrics).not.toContain('site-otel');
    expect(metrics).not.toContain('webhook.tenant');
  });

  it('a test event without a delivery id and without a handler: processed, no id, no handler span', async () => {
    await receiver().handle(signDelivery({ token, payload: testPayload(), deliveryId: null }), {});
    expect(only('webhook.receive').attributes).toEqual({
      'webhook.event': 'test',
      'webhook.outcome': 'processed',
      'webhook.token.index': 0,
      'http.response.status_code': 200,
    });
    expect(named('webhook.handler')).toHaveLength(0);
  });

  it('the histograms carry the advised buckets, each ending at 10 s but the lag, which reaches the tolerance', async () => {
    await receiver().handle(signDelivery({ token, payload: articleSyncPayload() }), { 'article.sync': () => {} });
    const top = async (name: string) =>
      ((await sdk.points(name)).points[0]!.value as Histogram).buckets.boundaries.at(-1);
    expect(await top('webhook.handler.duration')).toBe(10);
    expect(await top('webhook.verify.duration')).toBe(10);
    expect(await top('webhook.delivery.lag')).toBe(300);
    expect((await sdk.points('webhook.deliveries')).unit).toBe('{delivery}');
  });
});
