import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type QueueWorker, startWorker, type Tenant, tenantScoped } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freshPrefix } from '../redis/redis-clients.js';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl, until } from './queue-helpers.js';
import { tenantsInQueueMode } from './tenant-queue-scenario.js';

describeWithRedis('queue mode on BullMQ with tenants (contract v4)', () => {
  const closing: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  describe('two sites, one queue', () => {
    it('enqueues colliding delivery ids as two jobs carrying their tenant; worker dedup and ordering are per tenant', async () => {
      const queue = new Queue(freshQueueName('tenants'), { connection: bullConnection() });
      const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
      closing.push(
        () => redis.quit(),
        () => queue.obliterate({ force: true }).then(() => queue.close()),
      );
      await tenantsInQueueMode({
        // Finished jobs are kept here, so the test can read both jobs after the worker ran them.
        queue: () => bullmqQueue(queue, { jobOptions: { removeOnComplete: false } }),
        work: (options) => {
          const worker: QueueWorker = startWorker(
            bullmqSource({ queueName: queue.name, connection: bullConnection(), stalledInterval: 500 }),
            { ...options, logger: false },
          );
          closing.push(() => worker.close());
          return worker;
        },
        jobData: async (key) => (await queue.getJob(await bullmqJobId(key)))?.data,
        store: () => redisDedupStore(redis, { keyPrefix: freshPrefix() }),
      });
    }, 60_000);
  });

  it("enqueues a request kept during the rotation window with its site's tenant once the resolver knows the token", async () => {
    const queue = new Queue(freshQueueName('tenants-kept'), { connection: bullConnection() });
    closing.push(() => queue.obliterate({ force: true }).then(() => queue.close()));
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    const sites = new Map<string, Tenant>();
    const profile = { id: 'prof-k', domain: 'k.example.com' };
    const time = { now: Date.now() };
    const receiver = createReceiver({
      tenants: (hash) => sites.get(hash),
      rotatingUntil: time.now + 3_600_000,
      now: () => time.now,
      queue: bullmqQueue(queue, { jobOptions: { removeOnComplete: false } }),
      logger: false,
    });
    const signed = (deliveryId: string) =>
      signDelivery({
        token: 'whk_kept_queue_new',
        deliveryId,
        timestamp: Math.floor(time.now / 1000),
        payload: articleSyncPayload({ profile, timestamp: Math.floor(time.now / 1000) }),
      });
    expect((await receiver.handle(signed('kept-queued'))).status).toBe(503);
    sites.set(sha256('whk_kept_queue_new'), { id: 'site-k', token: 'whk_kept_queue_new', profileId: profile.id });
    time.now += 2_000;
    expect(await receiver.handle(signed('live-queued'))).toEqual({ status: 200, body: { ok: true, queued: true } });
    const job = async () => (await queue.getJob(await bullmqJobId(tenantScoped('site-k', 'kept-queued'))))?.data;
    await until('the kept request to be enqueued', async () => (await job()) !== undefined);
    expect(await job()).toMatchObject({ deliveryId: 'kept-queued', tenant: 'site-k' });
    expect(await queue.getJob(await bullmqJobId('kept-queued'))).toBeUndefined();
  });
});
