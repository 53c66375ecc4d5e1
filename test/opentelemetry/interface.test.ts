import { metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DeliveryEnd,
  type DeliveryTrace,
  type Instrumentation,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { memorySdk } from './sdk.js';

const token = 'whk_otel_interface_token_0c9f';
const quiet = { logger: false as const, onError: () => {} };

/** An instrumentation that writes down every call, in order. */
function recording() {
  const calls: string[] = [];
  const ends: DeliveryEnd[] = [];
  const instrumentation: Instrumentation = {
    startDelivery: ({ kind }) => {
      calls.push(`start ${kind}`);
      const delivery: DeliveryTrace = {
        verifying: () => calls.push('verifying'),
        verified: (event) => calls.push(`verified ${event.name}`),
        runHandler: (run) => {
          calls.push('runHandler');
          return run();
        },
        end: (end) => {
          calls.push(`end ${end.outcome}`);
          ends.push(end);
        },
      };
      return delivery;
    },
  };
  return { calls, ends, instrumentation };
}

describe('the core instrumentation interface', () => {
  it('calls start, verifying, verified, runHandler and end, in that order, once each', async () => {
    const { calls, ends, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, ...quiet });
    await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), { 'article.sync': () => {} });
    expect(calls).toEqual(['start receive', 'verifying', 'verified article.sync', 'runHandler', 'end processed']);
    expect(ends).toEqual([{ outcome: 'processed', status: 200 }]);
  });

  it('a refusal on the head (admit) ends without verifying; one later in the body ends after verifying', async () => {
    const { calls, ends, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, ...quiet });
    const refused = receiver.admit({ method: 'GET', headers: { 'x-service-delivery-id': 'head-1' } });
    expect(refused.admitted).toBe(false);
    const signed = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'body-1' });
    const admission = receiver.admit({ method: 'POST', headers: signed.headers });
    if (!admission.admitted) throw new Error('expected the head to pass');
    expect((await admission.handle(`${signed.body} `, {})).status).toBe(403);
    expect(calls).toEqual(['start receive', 'end refused', 'start receive', 'verifying', 'end refused']);
    expect(ends).toEqual([
      { outcome: 'refused', status: 405, code: 'method_not_allowed', deliveryId: 'head-1' },
      { outcome: 'refused', status: 403, code: 'invalid_signature', deliveryId: 'body-1' },
    ]);
  });

  it('counts an admission once: the admitted request’s handle() continues the trace its admit() started', async () => {
    const { calls, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, ...quiet });
    const signed = signDelivery({ token, payload: articleSyncPayload() });
    const admission = receiver.admit({ method: 'POST', headers: signed.headers });
    if (!admission.admitted) throw new Error('expected the head to pass');
    await admission.handle(signed.body, {});
    expect(calls.filter((call) => call.startsWith('start'))).toHaveLength(1);
    expect(calls.at(-1)).toBe('end processed');
  });

  it('an instrumentation that throws everywhere changes no answer and runs the handler exactly once', async () => {
    const boom = () => {
      throw new Error('exporter down');
    };
    const throwing: Instrumentation = {
      startDelivery: () => ({ verifying: boom, verified: boom, runHandler: boom, end: boom }),
    };
    let runs = 0;
    const handlers: WebhookHandlers = {
      'article.sync': () => {
        runs++;
        return { publishedUrl: 'https://blog.example.com/x' };
      },
    };
    const delivery = signDelivery({ token, payload: articleSyncPayload() });
    const answer = await createReceiver({ token, instrumentation: throwing, ...quiet }).handle(delivery, handlers);
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/x' } });
    expect(runs).toBe(1);
    const failingStart: Instrumentation = { startDelivery: boom };
    const again = signDelivery({ token, payload: articleSyncPayload() });
    expect(
      (await createReceiver({ token, instrumentation: failingStart, ...quiet }).handle(again, handlers)).status,
    ).toBe(200);
    // A handler's own throw still reaches the receiver through a runHandler that passes it on.
    const passing = recording();
    const failed = await createReceiver({ token, instrumentation: passing.instrumentation, ...quiet }).handle(
      signDelivery({ token, payload: articleSyncPayload() }),
      { 'article.sync': boom },
    );
    expect(failed.status).toBe(500);
    expect(passing.ends).toEqual([{ outcome: 'failed', status: 500, code: 'handler_failed' }]);
  });

  it('createReceiver refuses an instrumentation without startDelivery, naming the fix', () => {
    expect(() => createReceiver({ token, instrumentation: {} as Instrumentation })).toThrow(
      /instrumentation must be an object with a startDelivery method/,
    );
  });
});

describe('openTelemetry() with the global providers', () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
    propagation.disable();
  });

  it('records nothing, and starts no trace, while no SDK is registered; starts once one is', () => {
    const instrumentation = openTelemetry();
    const start = { kind: 'receive', receivedAt: Date.now() } as const;
    expect(instrumentation.startDelivery(start)).toBeUndefined();
    const { providers } = memorySdk();
    metrics.setGlobalMeterProvider(providers.meterProvider);
    expect(instrumentation.startDelivery(start)).toBeDefined();
    metrics.disable();
    expect(instrumentation.startDelivery(start)).toBeUndefined();
    trace.setGlobalTracerProvider(providers.tracerProvider);
    expect(instrumentation.startDelivery(start)).toBeDefined();
  });

  it('workers: webhook.process is a CONSUMER span linked to the PRODUCER span webhook.enqueue, a child of webhook.receive', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    const instrumentation = openTelemetry();
    const received = instrumentation.startDelivery({ kind: 'receive', receivedAt: Date.now() })!;
    const carrier: Record<string, string> = {};
    received.inject?.(carrier);
    received.end({ outcome: 'queued', status: 200 });
    expect(Object.keys(carrier)).toContain('traceparent');
    const processed = instrumentation.startDelivery({ kind: 'process', receivedAt: Date.now(), carrier })!;
    processed.end({ outcome: 'processed', status: 200 });
    const [enqueue, receive, process] = exporter.getFinishedSpans();
    expect(receive!.name).toBe('webhook.receive');
    expect(enqueue!.name).toBe('webhook.enqueue');
    expect(enqueue!.kind).toBe(SpanKind.PRODUCER);
    expect(enqueue!.parentSpanContext?.spanId).toBe(receive!.spanContext().spanId);
    expect(enqueue!.attributes['webhook.outcome']).toBe('queued');
    expect(process!.name).toBe('webhook.process');
    expect(process!.kind).toBe(SpanKind.CONSUMER);
    expect(process!.links.map((link) => link.context.spanId)).toEqual([enqueue!.spanContext().spanId]);
  });
});
