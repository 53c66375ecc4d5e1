import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { cloudflareQueue, type QueueMessageLike, queueConsumer } from 'webhook-cms-receiver/cloudflare';

// What needs no workerd: a Worker missing its R2 binding or its queue's producer is told so when the entry is built,
// before any delivery, whatever its size. What the bucket does is proven in workerd by
// test/queue/cloudflare-bodies.test.ts.
const producer = { send: async () => {} };
const handlers = { 'article.sync': () => {} };
const namesTheFix = /R2 bucket.*\[\[r2_buckets\]\] binding = "WEBHOOK_BODIES".*bodies: env\.WEBHOOK_BODIES/s;

describe('the R2 and queue bindings of Cloudflare queue mode', () => {
  it('cloudflareQueue without a bucket throws when built, naming the binding to add', () => {
    expect(() => (cloudflareQueue as (binding: unknown) => unknown)(producer)).toThrow(namesTheFix);
    // `bodies: env.WEBHOOK_BODIES` when wrangler.toml does not bind it.
    expect(() => cloudflareQueue(producer, { bodies: undefined as never })).toThrow(namesTheFix);
    expect(() => cloudflareQueue(producer, { bodies: {} as never })).toThrow(/got object/);
    expect(() =>
      createReceiver({ token: 't', queue: cloudflareQueue(producer, { bodies: undefined as never }) }),
    ).toThrow(namesTheFix);
  });

  it('queueConsumer with fixed options and no bucket throws when built', () => {
    expect(() => queueConsumer({ handlers } as never)).toThrow(/queueConsumer needs an R2 bucket/);
    expect(() => queueConsumer({ handlers } as never)).toThrow(namesTheFix);
  });

  it("queueConsumer without its own queue's producer throws when built, naming the binding to pass", () => {
    const bucket = { put: async () => {}, get: async () => null, delete: async () => {} };
    const namesRequeue =
      /producer binding of the queue it consumes.*\[\[queues\.producers\]\].*requeue: env\.WEBHOOKS/s;
    expect(() => queueConsumer({ handlers, bodies: bucket } as never)).toThrow(namesRequeue);
    expect(() => queueConsumer({ handlers, bodies: bucket, requeue: {} } as never)).toThrow(/got object/);
    expect(() => queueConsumer({ handlers, bodies: bucket, requeue: producer })).not.toThrow();
  });

  it('queueConsumer with options from env fails each batch while unbound, every message left to the queue', async () => {
    const consume = queueConsumer((env: { WEBHOOK_BODIES?: never }) => ({
      handlers,
      bodies: env.WEBHOOK_BODIES!,
      requeue: producer,
    }));
    const calls: string[] = [];
    const message: QueueMessageLike<never> = {
      id: '1',
      body: {} as never,
      attempts: 1,
      ack: () => calls.push('ack'),
      retry: () => calls.push('retry'),
    };
    const env = {};
    await expect(consume({ queue: 'webhooks', messages: [message] }, env)).rejects.toThrow(namesTheFix);
    // Thrown, not acknowledged: Cloudflare retries the whole batch.
    expect(calls).toEqual([]);
    await expect(consume({ queue: 'webhooks', messages: [message] }, env)).rejects.toThrow(namesTheFix);
  });
});
