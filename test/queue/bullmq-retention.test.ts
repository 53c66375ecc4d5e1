import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createReceiver, startWorker } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue, bullmqSource, DEFAULT_RETENTION } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl, until } from './queue-helpers.js';

const token = 'bullmq-retention-token';
const BODY_BYTES = 100 * 1024;

describeWithRedis('BullMQ retention: finished jobs are not kept forever', () => {
  const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  /** Bytes Redis holds under the queue's keys (`bull:<name>:*`). */
  const queueBytes = async (name: string) => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `bull:${name}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    let bytes = 0;
    for (const key of keys) bytes += Number((await redis.call('MEMORY', 'USAGE', key)) ?? 0);
    return bytes;
  };

  it('after 30 deliveries of 100 KiB, no completed job and no body is left in Redis; dead letters are bounded', async () => {
    const queue = new Queue(freshQueueName('retention'), { connection: bullConnection() });
    const prefix = `wcr-test:${randomUUID()}:`;
    const receiver = createReceiver({
      token,
      queue: bullmqQueue(queue),
      dedup: redisDedupStore(redis, { keyPrefix: `${prefix}receiver:` }),
    });
    const effects: string[] = [];
    const worker = startWorker(bullmqSource({ queueName: queue.name, connection: bullConnection() }), {
      handlers: { 'article.sync': ({ deliveryId }) => void effects.push(deliveryId) },
      dedup: redisDedupStore(redis, { keyPrefix: `${prefix}worker:` }),
      concurrency: 4,
      logger: false,
    });
    try {
      await worker.ready;
      const ids = Array.from({ length: 30 }, () => randomUUID());
      for (const id of ids) {
        const payload = articleSyncPayload({ article: { content_html: 'x'.repeat(BODY_BYTES) } });
        expect((await receiver.handle(signDelivery({ token, payload, deliveryId: id }))).status).toBe(200);
      }
      await until('every effect', () => effects.length === ids.length, 30_000);
      await until(
        'the last job to be removed',
        async () => (await queue.getJob(await bullmqJobId(ids.at(-1)!))) === undefined,
      );
      for (const id of ids) expect(await queue.getJob(await bullmqJobId(id))).toBeUndefined();
      // Less than one body left: the event stream and the queue's own bookkeeping.
      expect(await queueBytes(queue.name)).toBeLessThan(BODY_BYTES);
      // A dead letter keeps its body for replay, for a bounded time and number.
      expect(DEFAULT_RETENTION).toEqual({ removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600, count: 1000 } });
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 60_000);
});
