import { describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  WebhookError,
  type DedupStore,
  type DeliveryQueue,
  type QueuedDelivery,
  memoryDedupStore,
  withQueueMode,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// The engines themselves (BullMQ, pg-boss, Cloudflare Queues) are tested on real services in
// test/queue; this pins what the core decides around any queue, with one held in memory.
const token = 'whk_queue_mode_token';
const sync = (deliveryId: string) => signDelivery({ token, payload: articleSyncPayload(), deliveryId });
const QUEUED = { status: 200, body: { ok: true, queued: true } };
const QUEUED_AGAIN = { status: 200, body: { ok: true, queued: true, duplicate: true } };
const UNAVAILABLE = { status: 503, body: { error: 'Queue unavailable' } };

function heldQueue(overrides: Partial<DeliveryQueue> = {}) {
  const jobs: QueuedDelivery[] = [];
  const queue: DeliveryQueue = withQueueMode({
    enqueue: async (delivery) => {
      jobs.push(delivery);
    },
    ...overrides,
  });
  return { jobs, queue };
}

describe('queue mode in the core', () => {
  it('hands the engine the verified delivery as signed, stamped with the receiver clock, and answers queued', async () => {
    const { jobs, queue } = heldQueue();
    const delivery = sync('q-1');
    const receivedAt = Number(delivery.headers['X-Service-Timestamp']) * 1000 + 500;
    const answer = await createReceiver({ token: ['whk_next_token', token], queue, now: () => receivedAt }).handle(
      delivery,
      {},
    );
    expect(answer).toEqual(QUEUED);
    expect(jobs).toEqual([
      {
        body: delivery.body,
        deliveryId: 'q-1',
        timestamp: JSON.parse(delivery.body as string).timestamp,
        event: 'article.sync',
        tokenIndex: 1,
        receivedAt,
      },
    ]);
  });

  it('never runs the handlers given to handle(): workers run them', async () => {
    const handler = vi.fn();
    expect(
      await createReceiver({ token, queue: heldQueue().queue }).handle(sync('q-h'), { 'article.sync': handler }),
    ).toEqual(QUEUED);
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers a redelivery duplicate without a second job, from its own store', async () => {
    const { jobs, queue } = heldQueue();
    const onDuplicate = vi.fn();
    const receiver = createReceiver({ token, queue, onDuplicate });
    expect(await receiver.handle(sync('q-2'), {})).toEqual(QUEUED);
    expect(await receiver.handle(sync('q-2'), {})).toEqual(QUEUED_AGAIN);
    expect(jobs).toHaveLength(1);
    expect(onDuplicate).toHaveBeenCalledWith(expect.objectContaining({ deliveryId: 'q-2', inProgress: false }));
  });

  it('claims under the queued: prefix, so a worker sharing the store still runs the job', async () => {
    const store = memoryDedupStore();
    const claim = vi.fn(store.claim);
    await createReceiver({ token, queue: heldQueue().queue, dedup: { ...store, claim } }).handle(sync('q-3'), {});
    expect(claim.mock.calls[0]![0]).toEqual({ deliveryId: 'queued:q-3' });
    expect((await store.claim({ deliveryId: 'q-3' })).state).toBe('claimed');
  });

  it('answers duplicate when the engine already held the job (its own idempotency)', async () => {
    const { queue } = heldQueue({ enqueue: async () => ({ duplicate: true }) });
    expect(await createReceiver({ token, queue, dedup: false }).handle(sync('q-4'), {})).toEqual(QUEUED_AGAIN);
    expect(await createReceiver({ token, queue }).handle(sync('q-4b'), {})).toEqual(QUEUED_AGAIN);
  });

  it('answers 409 while another copy is being enqueued', async () => {
    let finish!: () => void;
    const { queue } = heldQueue({ enqueue: () => new Promise<void>((resolve) => (finish = resolve)) });
    const onDuplicate = vi.fn();
    const receiver = createReceiver({ token, queue, onDuplicate });
    const first = receiver.handle(sync('q-5'), {});
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'));
    expect(await receiver.handle(sync('q-5'), {})).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
    expect(onDuplicate).toHaveBeenCalledWith(expect.objectContaining({ deliveryId: 'q-5', inProgress: true }));
    finish();
    expect(await first).toEqual(QUEUED);
  });

  it('answers 503 when the engine refuses, frees the claim, and the retry is enqueued', async () => {
    let down = true;
    const { jobs, queue } = heldQueue();
    const enqueue = queue.enqueue;
    const onError = vi.fn();
    const receiver = createReceiver({
      token,
      onError,
      queue: withQueueMode({
        enqueue: (delivery, options) => (down ? Promise.reject(new Error('ECONNREFUSED')) : enqueue(delivery, options)),
      }),
    });
    expect(await receiver.handle(sync('q-6'), {})).toEqual(UNAVAILABLE);
    expect(onError.mock.calls[0]![0]).toMatchObject({
      code: 'queue_unavailable',
      reason: 'the queue failed to take the delivery: Error: ECONNREFUSED',
    });
    down = false;
    expect(await receiver.handle(sync('q-6'), {})).toEqual(QUEUED);
    expect(jobs.map((job) => job.deliveryId)).toEqual(['q-6']);
  });

  it('answers 503 when the engine throws synchronously, without a store too', async () => {
    const queue: DeliveryQueue = withQueueMode({
      enqueue: () => {
        throw new Error('closed');
      },
    });
    const onError = vi.fn();
    expect(await createReceiver({ token, queue, dedup: false, onError }).handle(sync('q-7'), {})).toEqual(UNAVAILABLE);
    expect(onError.mock.calls[0]![0].reason).toBe('the queue failed to take the delivery: Error: closed');
  });

  it('gives up on an engine that hangs after enqueueTimeoutMs, aborting its signal', async () => {
    let signal: AbortSignal | undefined;
    const queue: DeliveryQueue = withQueueMode({
      enqueue: (_delivery, options) => {
        signal = options.signal;
        return new Promise(() => undefined);
      },
    });
    const onError = vi.fn();
    // The engine never settles: only enqueueTimeoutMs can end the wait, and its abort says it did.
    const answer = await createReceiver({ token, queue, enqueueTimeoutMs: 50, onError }).handle(sync('q-8'), {});
    expect(answer).toEqual(UNAVAILABLE);
    expect(signal?.aborted).toBe(true);
    expect(onError.mock.calls[0]![0].reason).toBe(
      'the queue did not take the delivery within enqueueTimeoutMs (50 ms)',
    );
    expect(signal?.reason).toMatchObject({ code: 'queue_unavailable', reason: expect.stringMatching(/50 ms/) });
  });

  it('still answers 503 and reports both when releasing the claim fails too', async () => {
    const onError = vi.fn();
    const store = { ...memoryDedupStore(), release: () => Promise.reject(new Error('release lost')) };
    const queue: DeliveryQueue = withQueueMode({ enqueue: () => Promise.reject(new Error('down')) });
    expect(await createReceiver({ token, queue, dedup: store, onError }).handle(sync('q-9'), {})).toEqual(UNAVAILABLE);
    expect(onError.mock.calls.map(([error]) => error.reason ?? error.message)).toEqual([
      'the dedup store failed to release: Error: release lost',
      'the queue failed to take the delivery: Error: down',
    ]);
  });

  it('answers 503 dedup_unavailable when the store cannot claim, and enqueues nothing', async () => {
    const { jobs, queue } = heldQueue();
    const store: DedupStore = {
      claim: () => Promise.reject(new Error('store closed')),
      complete: vi.fn(),
      release: vi.fn(),
    };
    const onError = vi.fn();
    const answer = await createReceiver({ token, queue, dedup: store, onError }).handle(sync('q-10'), {});
    expect(answer).toEqual({ status: 503, body: { error: 'Dedup store unavailable' } });
    expect(jobs).toEqual([]);
    expect(onError.mock.calls[0]![0].reason).toBe('the dedup store failed to claim: Error: store closed');
  });

  it('answers queued when recording the enqueued delivery fails: the job is in the engine', async () => {
    const { jobs, queue } = heldQueue();
    const onError = vi.fn();
    const store = { ...memoryDedupStore(), complete: () => Promise.reject(new Error('complete lost')) };
    expect(await createReceiver({ token, queue, dedup: store, onError }).handle(sync('q-11'), {})).toEqual(QUEUED);
    expect(jobs).toHaveLength(1);
    expect(onError.mock.calls[0]![0].message).toBe(
      'the dedup store failed to record the enqueued delivery: Error: complete lost',
    );
  });

  it('enqueues a test event sent without a delivery id, without claiming anything', async () => {
    const { jobs, queue } = heldQueue();
    const store = memoryDedupStore();
    const claim = vi.fn(store.claim);
    const delivery = signDelivery({ token, payload: testPayload() });
    const { 'X-Service-Delivery-Id': _id, ...headers } = delivery.headers as Record<string, string>;
    const receiver = createReceiver({ token, queue, dedup: { ...store, claim } });
    expect(await receiver.handle({ headers, body: delivery.body }, {})).toEqual(QUEUED);
    expect(await receiver.handle({ headers, body: delivery.body }, {})).toEqual(QUEUED);
    expect(claim).not.toHaveBeenCalled();
    expect(jobs.map((job) => [job.event, job.deliveryId])).toEqual([
      ['test', null],
      ['test', null],
    ]);
  });

  it('puts the receiving span’s context on the job, and nothing when the tracer has none', async () => {
    const { jobs, queue } = heldQueue();
    const trace = (carrier: Record<string, string>) => ({
      startDelivery: () => ({
        inject: (into: Record<string, string>) => Object.assign(into, carrier),
        end: () => undefined,
      }),
    });
    const traced = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await createReceiver({ token, queue, instrumentation: trace(traced) as never }).handle(sync('q-12'), {});
    await createReceiver({ token, queue, instrumentation: trace({}) as never }).handle(sync('q-13'), {});
    expect(jobs[0]!.trace).toEqual(traced);
    expect(jobs[1]).not.toHaveProperty('trace');
  });

  it('answers 503 queue_unavailable whatever error the engine rejects with, keeping it as the cause', async () => {
    const engineError = new WebhookError('invalid_payload', 'an engine that reuses our errors');
    const onError = vi.fn();
    const queue: DeliveryQueue = withQueueMode({ enqueue: () => Promise.reject(engineError) });
    expect(await createReceiver({ token, queue, onError }).handle(sync('q-14'), {})).toEqual(UNAVAILABLE);
    expect(onError.mock.calls[0]![0]).toMatchObject({ code: 'queue_unavailable', cause: engineError });
  });

  it('keeps the store’s error as the cause of dedup_unavailable', async () => {
    const storeError = new Error('store closed');
    const onError = vi.fn();
    const store = { ...memoryDedupStore(), claim: () => Promise.reject(storeError) };
    await createReceiver({ token, queue: heldQueue().queue, dedup: store, onError }).handle(sync('q-15'), {});
    expect(onError.mock.calls[0]![0]).toMatchObject({ code: 'dedup_unavailable', cause: storeError });
  });

  it('stops its enqueue timer once the engine took the job: the signal is never aborted afterwards', async () => {
    let signal: AbortSignal | undefined;
    const queue: DeliveryQueue = withQueueMode({
      enqueue: async (_delivery, options) => {
        signal = options.signal;
      },
    });
    expect(await createReceiver({ token, queue, enqueueTimeoutMs: 20 }).handle(sync('q-16'), {})).toEqual(QUEUED);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(signal?.aborted).toBe(false);
  });

  it('hands the store’s warning (ids dropped at its bound) to onError', async () => {
    const onError = vi.fn();
    const receiver = createReceiver({
      token,
      queue: heldQueue().queue,
      dedup: memoryDedupStore({ maxEntries: 1 }),
      onError,
    });
    for (const id of ['w-1', 'w-2', 'w-3']) expect(await receiver.handle(sync(id), {})).toEqual(QUEUED);
    expect(onError.mock.calls.map(([error]) => (error as Error).message)).toEqual([
      expect.stringMatching(/^memoryDedupStore dropped 1 delivery id\(s\) still inside their retention/),
    ]);
  });
});

describe('hybrid answers (queueWaitMs)', () => {
  it('answers with the worker’s published_url when the job finished in time', async () => {
    const waitForResult = vi.fn(async (_delivery: QueuedDelivery, _options: { timeoutMs: number }) => ({
      ok: true as const,
      published_url: 'https://blog.example.com/a',
    }));
    const { queue } = heldQueue({ waitForResult });
    const answer = await createReceiver({ token, queue, queueWaitMs: 2000 }).handle(sync('h-1'), {});
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/a' } });
    expect(waitForResult.mock.calls[0]![1]).toEqual({ timeoutMs: 2000 });
  });

  it('answers ok without a url when the finished job had none, and queued when it did not finish or failed', async () => {
    const answers = [{ ok: true as const }, undefined, { ok: false } as never, { ok: true, published_url: 7 } as never];
    const { queue } = heldQueue({ waitForResult: async () => answers.shift() });
    const receiver = createReceiver({ token, queue, queueWaitMs: 100 });
    expect(await receiver.handle(sync('h-2'), {})).toEqual({ status: 200, body: { ok: true } });
    expect(await receiver.handle(sync('h-3'), {})).toEqual(QUEUED);
    expect(await receiver.handle(sync('h-4'), {})).toEqual(QUEUED);
    expect(await receiver.handle(sync('h-5'), {})).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers queued when waiting throws, and does not wait for a duplicate', async () => {
    const waitForResult = vi.fn(() => {
      throw new Error('subscriber lost');
    });
    const { queue } = heldQueue({ waitForResult });
    const receiver = createReceiver({ token, queue, queueWaitMs: 100 });
    expect(await receiver.handle(sync('h-6'), {})).toEqual(QUEUED);
    expect(await receiver.handle(sync('h-6'), {})).toEqual(QUEUED_AGAIN);
    expect(waitForResult).toHaveBeenCalledTimes(1);
  });

  it('does not wait at all with the default queueWaitMs of 0', async () => {
    const waitForResult = vi.fn();
    await createReceiver({ token, queue: heldQueue({ waitForResult }).queue }).handle(sync('h-7'), {});
    expect(waitForResult).not.toHaveBeenCalled();
  });
});

describe('queue mode options, refused at createReceiver with the fix', () => {
  const queue = heldQueue().queue;
  it('needs an enqueue method', () => {
    expect(() => createReceiver({ token, queue: {} as never })).toThrow(
      /createReceiver: queue must have an enqueue\(delivery, \{ signal \}\) method, such as bullmqQueue\(queue\)/,
    );
    expect(() => createReceiver({ token, queue: null as never })).toThrow(
      "createReceiver: queue must have an enqueue(delivery, { signal }) method, such as bullmqQueue(queue) from 'webhook-cms-receiver/bullmq' or pgBossQueue(boss, name) from 'webhook-cms-receiver/pg-boss'.",
    );
  });

  it('names withQueueMode for a queue of your own, which it wraps without changing it', async () => {
    const plain: DeliveryQueue = {
      enqueue: async () => undefined,
      stats: async () => ({ depth: 2, oldestAgeSeconds: 1 }),
    };
    expect(() => createReceiver({ token, queue: plain })).toThrow(
      "createReceiver: queue is a DeliveryQueue of your own: pass withQueueMode(queue) from 'webhook-cms-receiver' (bullmqQueue, pgBossQueue and cloudflareQueue return queues that need no wrapping).",
    );
    const wrapped = withQueueMode(plain);
    expect(Object.keys(plain)).toEqual(['enqueue', 'stats']);
    expect(wrapped).not.toBe(plain);
    expect(wrapped.waitForResult).toBeUndefined();
    expect(await wrapped.stats!()).toEqual({ depth: 2, oldestAgeSeconds: 1 });
    expect(await createReceiver({ token, queue: wrapped }).handle(sync('w-1'), {})).toEqual(QUEUED);
    expect(() => withQueueMode({} as never)).toThrow(
      'withQueueMode needs a queue with an enqueue(delivery, { signal }) method.',
    );
  });

  it('keeps ordering for the worker', () => {
    expect(() => createReceiver({ token, queue, ordering: true })).toThrow(
      'createReceiver: ordering applies where handlers run; in queue mode pass ordering: true to startWorker and leave it off the receiver.',
    );
  });

  it('keeps queueWaitMs from 0 to 8000 and inside the service’s 10 s with enqueueTimeoutMs', () => {
    const waiting = heldQueue({ waitForResult: async () => undefined }).queue;
    for (const queueWaitMs of [-1, 8001, Number.NaN, '100' as never, true as never]) {
      expect(() => createReceiver({ token, queue: waiting, queueWaitMs })).toThrow(
        /queueWaitMs must be a number from 0 to 8000, and with enqueueTimeoutMs under the service's 10 s wait/,
      );
    }
    expect(() => createReceiver({ token, queue: waiting, queueWaitMs: 8001, enqueueTimeoutMs: 1000 })).toThrow(
      RangeError,
    );
    expect(() => createReceiver({ token, queue: waiting, queueWaitMs: 5000, enqueueTimeoutMs: 5000 })).toThrow(
      RangeError,
    );
    expect(() => createReceiver({ token, queue: waiting, queueWaitMs: 4999, enqueueTimeoutMs: 5000 })).not.toThrow();
    expect(() => createReceiver({ token, queue: waiting, queueWaitMs: 8000, enqueueTimeoutMs: 1999 })).not.toThrow();
    expect(() => createReceiver({ token, queue: waiting, queueWaitMs: 0, enqueueTimeoutMs: 20_000 })).not.toThrow();
  });

  it('needs a queue that can wait for hybrid answers', () => {
    expect(() => createReceiver({ token, queue, queueWaitMs: 100 })).toThrow(
      /queueWaitMs needs a queue that can wait for a job \(waitForResult\)/,
    );
  });

  it('refuses an enqueueTimeoutMs that is not a positive number', () => {
    expect(() => createReceiver({ token, queue, enqueueTimeoutMs: 0 })).toThrow(/enqueueTimeoutMs/);
  });
});
