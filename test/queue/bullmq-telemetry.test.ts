import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createReceiver,
  memoryDedupStore,
  type QueueWorker,
  startWorker,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import {
  embargoedArticle,
  embargoedTexts,
  enableContext,
  enablePropagation,
  memorySdk,
  spanText,
} from '../opentelemetry/sdk.js';
import { bullConnection, describeWithRedis, freshQueueName, sleep, until } from './queue-helpers.js';

const token = 'whk_otel_queue_secret_token_4c1d9a';
const article = embargoedArticle;
const secrets = [token, ...embargoedTexts];

describeWithRedis('OpenTelemetry in queue mode, end to end: receiver, BullMQ on Redis, worker', () => {
  const sdk = memorySdk();
  let disableContext: () => void;
  let disablePropagation: () => void;
  let queue: Queue;
  let worker: QueueWorker | undefined;
  beforeAll(() => {
    disableContext = enableContext();
    disablePropagation = enablePropagation();
    queue = new Queue(freshQueueName('otel'), { connection: bullConnection() });
  });
  afterAll(async () => {
    await worker?.close();
    await queue.obliterate({ force: true }).then(() => queue.close());
    await sdk.shutdown();
    disableContext();
    disablePropagation();
  });

  const gauge = async (name: string) => (await sdk.points(name)).points.map((point) => point.value);
  const named = (name: string) => sdk.spans().filter((span) => span.name === name);
  const byDelivery = (spans: ReadableSpan[], id: string) =>
    spans.filter((span) => span.attributes['webhook.delivery_id'] === id);

  it('producer span at enqueue, a linked CONSUMER span per run, the handler span active inside, the gauges, and no secret anywhere', async () => {
    const deliveryQueue = bullmqQueue(queue);
    const receiver = createReceiver({
      token,
      queue: deliveryQueue,
      dedup: memoryDedupStore(),
      instrumentation: openTelemetry({ ...sdk.providers, queue: deliveryQueue }),
      logger: false,
    });
    const deliveries = [
      signDelivery({ token, payload: articleSyncPayload({ article }), deliveryId: 'otel-q-1' }),
      signDelivery({ token, payload: articleSyncPayload({ article }), deliveryId: 'otel-q-2' }),
      signDelivery({
        token,
        payload: articleTrashPayload({ article: { id: article.id, slug: article.slug } }),
        deliveryId: 'otel-q-3',
      }),
    ];
    const signatures = deliveries.map((d) => d.headers['X-Service-Signature']!.slice('sha256='.length));
    for (const delivery of deliveries) {
      expect((await receiver.handle(delivery)).body).toEqual({ ok: true, queued: true });
    }

    // No worker yet: the jobs wait, and the oldest has waited a little.
    await sleep(60);
    expect(await gauge('webhook.queue.depth')).toEqual([3]);
    const [waited] = (await gauge('webhook.queue.oldest_age')) as number[];
    expect(waited).toBeGreaterThan(0.05);
    expect(waited).toBeLessThan(30);

    const receives = named('webhook.receive');
    const enqueues = named('webhook.enqueue');
    expect(receives.map((span) => span.attributes['webhook.outcome'])).toEqual(['queued', 'queued', 'queued']);
    expect(enqueues).toHaveLength(3);
    for (const enqueue of enqueues) {
      expect(enqueue.kind).toBe(SpanKind.PRODUCER);
      const receive = receives.find((span) => span.spanContext().spanId === enqueue.parentSpanContext?.spanId);
      expect(receive?.attributes['webhook.delivery_id']).toBe(enqueue.attributes['webhook.delivery_id']);
    }

    const active: Array<string | undefined> = [];
    let failedOnce = false;
    const handlers: WebhookHandlers = {
      // The second sync fails once, with the article's text in its message, then succeeds.
      'article.sync': (event) => {
        active.push(trace.getActiveSpan()?.spanContext().spanId);
        if (event.deliveryId === 'otel-q-2' && !failedOnce) {
          failedOnce = true;
          throw new Error(`could not publish ${event.article.title}: ${event.article.content_markdown}`);
        }
      },
      'article.trash': () => {
        active.push(trace.getActiveSpan()?.spanContext().spanId);
      },
    };
    worker = startWorker(bullmqSource({ queueName: queue.name, connection: bullConnection() }), {
      handlers,
      dedup: memoryDedupStore(),
      retry: { attempts: 3, initialDelayMs: 50, maxDelayMs: 100 },
      instrumentation: openTelemetry(sdk.providers),
      logger: false,
    });
    await until(
      'every job processed',
      () => named('webhook.process').filter((span) => span.attributes['webhook.outcome'] === 'processed').length === 3,
    );

    const processes = named('webhook.process');
    expect(processes.map((span) => span.attributes['webhook.outcome']).sort()).toEqual([
      'failed',
      'processed',
      'processed',
      'processed',
    ]);
    for (const id of ['otel-q-1', 'otel-q-2', 'otel-q-3']) {
      const [enqueue] = byDelivery(enqueues, id);
      for (const process of byDelivery(processes, id)) {
        expect(process.kind).toBe(SpanKind.CONSUMER);
        // Linked, not parented: the worker's trace is its own, pointing at the enqueue.
        expect(process.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
          [enqueue!.spanContext().traceId, enqueue!.spanContext().spanId],
        ]);
        expect(process.parentSpanContext).toBeUndefined();
        expect(process.attributes['webhook.event']).toBe(id === 'otel-q-3' ? 'article.trash' : 'article.sync');
      }
    }
    const failed = processes.find((span) => span.attributes['webhook.outcome'] === 'failed')!;
    expect(failed.attributes['webhook.delivery_id']).toBe('otel-q-2');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(processes.filter((span) => span !== failed).every((span) => span.status.code !== SpanStatusCode.ERROR)).toBe(
      true,
    );
    expect(
      processes.every((span) => span.attributes['http.response.status_code'] === (span === failed ? 500 : 200)),
    ).toBe(true);

    // webhook.handler: a child of its run's webhook.process, and the active span inside the handler.
    const handlerSpans = named('webhook.handler');
    expect(handlerSpans).toHaveLength(4);
    for (const handler of handlerSpans) {
      const parent = processes.find((span) => span.spanContext().spanId === handler.parentSpanContext?.spanId);
      expect(parent).toBeDefined();
      expect(handler.spanContext().traceId).toBe(parent!.spanContext().traceId);
    }
    expect([...active].sort()).toEqual(handlerSpans.map((span) => span.spanContext().spanId).sort());
    const failedHandler = handlerSpans.find((span) => span.parentSpanContext?.spanId === failed.spanContext().spanId);
    expect(failedHandler?.attributes['error.type']).toBe('Error');

    // Everything ran: the queue is empty again.
    await until('the gauges show an empty queue', async () => (await gauge('webhook.queue.depth'))[0] === 0);
    expect(await gauge('webhook.queue.oldest_age')).toEqual([0]);

    const spans = sdk.spans();
    const texts = [
      ...spans.map(spanText),
      JSON.stringify((await sdk.metrics()).scopeMetrics.flatMap((scope) => scope.metrics.map((m) => m.dataPoints))),
    ];
    for (const text of texts) {
      for (const secret of [...secrets, ...signatures]) expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toMatch(/bearer|sha256=|traceparent/);
    }
    const keys = new Set(spans.flatMap((span) => Object.keys(span.attributes)));
    expect([...keys].sort()).toEqual(
      [
        'error.type',
        'http.response.status_code',
        'webhook.delivery_id',
        'webhook.event',
        'webhook.outcome',
        'webhook.token.index',
      ].sort(),
    );
    expect(spans.flatMap((span) => span.events)).toEqual([]);
  });
});
