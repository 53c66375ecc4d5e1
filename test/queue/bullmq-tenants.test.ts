import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { freshPrefix } from '../redis/redis-clients.js';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl } from './queue-helpers.js';
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
});
