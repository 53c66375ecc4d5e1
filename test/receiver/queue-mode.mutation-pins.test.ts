import { describe, expect, it } from 'vitest';
import { createReceiver, type DeliveryQueue, type QueuedDelivery, withQueueMode } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// Queue mode's edges that test/receiver/queue-mode.test.ts leaves open: the tenant on the job,
// what withQueueMode adds to a queue, and a wrapped queue whose enqueue got lost on the way.

const token = 'whk_queue_pins_token_0123';

function heldQueue() {
  const jobs: QueuedDelivery[] = [];
  const queue = withQueueMode({
    enqueue: async (delivery) => {
      jobs.push(delivery);
    },
  });
  return { jobs, queue };
}

describe('queue mode, in detail', () => {
  it('puts the tenant on the job in tenant mode, so the worker knows whose delivery it runs', async () => {
    const { jobs, queue } = heldQueue();
    const receiver = createReceiver({ tenants: () => ({ id: 'site-7', token }), queue });
    const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'q-t' }), {});
    expect(answer).toEqual({ status: 200, body: { ok: true, queued: true } });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ deliveryId: 'q-t', tenant: 'site-7' });
  });

  it('leaves the tenant off the job outside tenant mode', async () => {
    const { jobs, queue } = heldQueue();
    await createReceiver({ token, queue }).handle(signDelivery({ token, payload: articleSyncPayload() }), {});
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).not.toHaveProperty('tenant');
  });

  it('adds only the methods the queue has: no stats or waitForResult the gauges or queueWaitMs would call', () => {
    const wrapped = withQueueMode({ enqueue: async () => undefined });
    expect(wrapped).not.toHaveProperty('stats');
    expect(wrapped).not.toHaveProperty('waitForResult');
  });

  it('refuses no queue at all with its own words', () => {
    expect(() => withQueueMode(null as never)).toThrow(
      new TypeError('withQueueMode needs a queue with an enqueue(delivery, { signal }) method.'),
    );
    expect(() => withQueueMode(undefined as never)).toThrow(
      new TypeError('withQueueMode needs a queue with an enqueue(delivery, { signal }) method.'),
    );
  });

  it('refuses at createReceiver a wrapped queue copied without its enqueue method', () => {
    // Spreading keeps queue mode's mark (a symbol-keyed property) but not a working enqueue.
    const copied = { ...withQueueMode({ enqueue: async () => undefined }), enqueue: undefined };
    expect(() => createReceiver({ token, queue: copied as unknown as DeliveryQueue })).toThrow(
      new TypeError(
        'createReceiver: queue must have an enqueue(delivery, { signal }) method, such as bullmqQueue(queue) ' +
          "from 'webhook-cms-receiver/bullmq' or pgBossQueue(boss, name) from 'webhook-cms-receiver/pg-boss'.",
      ),
    );
  });
});
