import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DeliveryQueue,
  memoryDedupStore,
  type QueuedDelivery,
  type WebhookEvent,
  withQueueMode,
} from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';

const OLD = 'pipeline-old-token-0123456';
const NEW = 'pipeline-new-token-6543210';

/** A token source the test switches, armed for an hour, on a clock the test moves. */
function rotating() {
  const time = { now: Date.now() };
  const secret = { tokens: [OLD] };
  const deadline = time.now + 3_600_000;
  return {
    time,
    secret,
    options: {
      token: () => ({ tokens: secret.tokens, rotatingUntil: deadline }),
      now: () => time.now,
      dedup: memoryDedupStore({ now: () => time.now }),
      logger: false as const,
    },
    rotate() {
      secret.tokens = [NEW, OLD];
      time.now += 1000;
    },
  };
}

describe('a kept request goes through the same pipeline as a live one', () => {
  it('queue mode: the kept delivery is enqueued once, and the retry answers queued duplicate', async () => {
    const jobs: QueuedDelivery[] = [];
    let enqueued: () => void = () => {};
    const first = new Promise<void>((resolve) => (enqueued = resolve));
    const queue: DeliveryQueue = withQueueMode({
      enqueue: async (delivery) => {
        jobs.push(delivery);
        if (delivery.deliveryId === 'q-kept') enqueued();
      },
    });
    const { options, rotate, time } = rotating();
    const receiver = createReceiver({ ...options, queue });
    const payload = articleSyncPayload();
    const kept = signDelivery({ token: NEW, payload, deliveryId: 'q-kept', timestamp: Math.floor(time.now / 1000) });
    const arrivedAt = time.now;
    expect((await receiver.handle(kept)).status).toBe(503);
    expect(jobs).toHaveLength(0);
    rotate();
    // The next delivery with the new token re-reads the source, which re-checks what was kept.
    await receiver.handle(
      signDelivery({ token: NEW, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) }),
    );
    await first;
    expect(jobs.filter((job) => job.deliveryId === 'q-kept')).toHaveLength(1);
    expect(jobs.find((job) => job.deliveryId === 'q-kept')?.tokenIndex).toBe(0);
    // Enqueued with the time it first arrived (the lag metric's start), not the time it was let out.
    expect(jobs.find((job) => job.deliveryId === 'q-kept')?.receivedAt).toBe(arrivedAt);
    const retry = signDelivery({ token: NEW, payload, deliveryId: 'q-kept', timestamp: Math.floor(time.now / 1000) });
    // The enqueue that resolved `first` is still being recorded: like the service, retry a 409.
    let answer = await receiver.handle(retry);
    while (answer.status === 409) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      answer = await receiver.handle(retry);
    }
    expect(answer).toEqual({ status: 200, body: { ok: true, queued: true, duplicate: true } });
  });

  it('ordering: a kept sync older than a trash already applied is skipped as stale', async () => {
    const { options, rotate, time } = rotating();
    let skipped: (deliveryId: string) => void = () => {};
    const stale = new Promise<string>((resolve) => (skipped = resolve));
    const receiver = createReceiver({ ...options, ordering: true, onStale: (info) => skipped(info.deliveryId) });
    const seen: string[] = [];
    const record = (event: WebhookEvent) => void seen.push(event.deliveryId!);
    const handlers = { 'article.sync': record, 'article.trash': record };
    const article = articleSyncPayload().article;
    const at = Math.floor(time.now / 1000);
    // An old sync is kept during the window...
    const oldSync = signDelivery({
      token: NEW,
      payload: articleSyncPayload({ article, timestamp: at - 10 }),
      deliveryId: 'sync-old',
      timestamp: at,
    });
    expect((await receiver.handle(oldSync, handlers)).status).toBe(503);
    // ...and a newer trash for the same article arrives with the old token and is applied.
    const trash = signDelivery({
      token: OLD,
      payload: articleTrashPayload({ article: { id: article.id }, timestamp: at } as never),
      deliveryId: 'trash-new',
      timestamp: at,
    });
    expect((await receiver.handle(trash, handlers)).status).toBe(200);
    rotate();
    const live = signDelivery({ token: NEW, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) });
    expect((await receiver.handle(live, handlers)).status).toBe(200);
    // The kept sync is older than the trash: ordering skips it, so the handler saw only the trash and the live one.
    expect(await stale).toBe('sync-old');
    expect(seen).toEqual(['trash-new', live.headers['X-Service-Delivery-Id']]);
    const retry = signDelivery({
      token: NEW,
      payload: articleSyncPayload({ article, timestamp: at - 10 }),
      deliveryId: 'sync-old',
      timestamp: Math.floor(time.now / 1000),
    });
    expect(await receiver.handle(retry, handlers)).toEqual({
      status: 200,
      body: { ok: true, stale: true, duplicate: true },
    });
  });
});
