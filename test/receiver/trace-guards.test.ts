import { describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  type DeliveryEnd,
  type DeliveryTrace,
  type Instrumentation,
  memoryDedupStore,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// What the core tells any instrumentation (the OpenTelemetry one is tested in test/opentelemetry).
const token = 'whk_trace_guards_token';
const sync = (deliveryId: string) => signDelivery({ token, payload: articleSyncPayload(), deliveryId });

function recording(runHandler: DeliveryTrace['runHandler'] = (run) => run()) {
  const ends: DeliveryEnd[] = [];
  const instrumentation: Instrumentation = {
    startDelivery: () => ({
      verifying: () => undefined,
      verified: () => undefined,
      runHandler,
      end: (end) => void ends.push(end),
    }),
  };
  return { ends, instrumentation };
}

describe('the trace the core keeps around an instrumentation', () => {
  it('ends a rejected handler as handler_failed, not as a timeout', async () => {
    const { ends, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, onError: () => undefined });
    const answer = await receiver.handle(sync('t-reject'), {
      'article.sync': async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('late failure');
      },
    });
    expect(answer.status).toBe(500);
    expect(ends).toEqual([{ outcome: 'failed', status: 500, code: 'handler_failed' }]);
  });

  it('ends a handler still running at its deadline as handler_timeout', async () => {
    const { ends, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, handlerTimeoutMs: 20, onError: () => undefined });
    await receiver.handle(sync('t-timeout'), { 'article.sync': () => new Promise(() => undefined) });
    expect(ends).toEqual([{ outcome: 'failed', status: 500, code: 'handler_timeout' }]);
  });

  it('keeps the pipeline’s own code for a store failure', async () => {
    const { ends, instrumentation } = recording();
    const dedup = { ...memoryDedupStore(), claim: () => Promise.reject(new Error('down')) };
    await createReceiver({ token, instrumentation, dedup, onError: () => undefined }).handle(sync('t-store'), {});
    expect(ends).toEqual([{ outcome: 'failed', status: 503, code: 'dedup_unavailable' }]);
  });

  it('ends a 500 refusal (a body a parser consumed) as failed, a 4xx one as refused', async () => {
    const { ends, instrumentation } = recording();
    const receiver = createReceiver({ token, instrumentation, logger: false });
    const { headers } = sync('t-parsed');
    expect((await receiver.handle({ headers, body: { already: 'parsed' } as never }, {})).status).toBe(500);
    expect((await receiver.handle({ headers, body: '{}' }, {})).status).toBe(403);
    expect(ends).toEqual([
      { outcome: 'failed', status: 500, code: 'body_already_parsed', deliveryId: 't-parsed' },
      { outcome: 'refused', status: 403, code: 'invalid_signature', deliveryId: 't-parsed' },
    ]);
  });

  it('runs the handler once when the instrumentation’s runHandler lets its error through', async () => {
    const { instrumentation } = recording((run) => {
      try {
        return run();
      } finally {
        // An exporter that also fails afterwards must not make the core run the handler again.
      }
    });
    const handler = vi.fn(() => {
      throw new Error('handler broke');
    });
    const answer = await createReceiver({ token, instrumentation, onError: () => undefined }).handle(sync('t-once'), {
      'article.sync': handler,
    });
    expect(answer.status).toBe(500);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs the handler untraced, once, when runHandler throws before calling it', async () => {
    const { instrumentation } = recording(() => {
      throw new Error('exporter broke');
    });
    const handler = vi.fn(() => ({ publishedUrl: 'https://blog.example.com/once' }));
    const answer = await createReceiver({ token, instrumentation }).handle(sync('t-untraced'), {
      'article.sync': handler,
    });
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/once' } });
    expect(handler).toHaveBeenCalledTimes(1);
  });
});
