import { randomUUID } from 'node:crypto';
import { type ConnectionOptions, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, startWorker } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { describeWithCluster, type RunningCluster, startCluster } from '../redis/redis-cluster.js';
import { freshQueueName, until } from './queue-helpers.js';

const token = 'bullmq-cluster-token';

describeWithCluster('queue mode on BullMQ over a real 3-master Redis Cluster (hash-tagged prefix)', () => {
  let cluster: RunningCluster;
  const clients: Cluster[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => {})));
    await cluster?.stop();
  });
  /**
   * One ioredis Cluster per BullMQ object (its workers block on their connection). BullMQ's
   * types come from its own copy of ioredis, hence the cast.
   */
  const connection = () => clusterClient() as unknown as ConnectionOptions & Cluster;
  const clusterClient = () => {
    const client = new Cluster(
      cluster.nodes.map(({ host, port }) => ({ host, port })),
      { redisOptions: { maxRetriesPerRequest: null } },
    );
    client.on('error', () => {});
    clients.push(client);
    return client;
  };

  it('enqueues, answers a redelivery as a duplicate, and a worker with a cluster dedup store runs the handler once', async () => {
    // `{…}` makes every key of the queue hash to one slot, as BullMQ needs on a cluster.
    const prefix = `{wcr-${randomUUID().slice(0, 8)}}`;
    const queueName = freshQueueName('cluster');
    const queue = new Queue(queueName, { connection: connection(), prefix });
    const receiver = createReceiver({
      token,
      queue: bullmqQueue(queue),
      dedup: redisDedupStore(connection(), { keyPrefix: `wcr-test:${randomUUID()}:` }),
    });
    const effects: string[] = [];
    const worker = startWorker(bullmqSource({ queueName, prefix, connection: connection() }), {
      handlers: { 'article.sync': ({ deliveryId }) => void effects.push(deliveryId) },
      dedup: redisDedupStore(connection(), { keyPrefix: `wcr-test:${randomUUID()}:` }),
      ordering: true,
    });
    try {
      const signed = signDelivery({ token, payload: articleSyncPayload() });
      expect((await receiver.handle(signed)).body).toEqual({ ok: true, queued: true });
      expect((await receiver.handle(signed)).body).toEqual({ ok: true, queued: true, duplicate: true });
      await until('the handler', () => effects.length === 1);
      expect(effects).toEqual([signed.headers['X-Service-Delivery-Id']]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('on the cluster: a completed job is removed and a hybrid answer reads its result; copies held by one worker wait, one effect', async () => {
    const prefix = `{wcr-${randomUUID().slice(0, 8)}}`;
    const queueName = freshQueueName('cluster-defer');
    const queue = new Queue(queueName, { connection: connection(), prefix });
    const receiver = createReceiver({ token, queue: bullmqQueue(queue), queueWaitMs: 4000 });
    const effects: string[] = [];
    const worker = startWorker(bullmqSource({ queueName, prefix, connection: connection() }), {
      handlers: {
        'article.sync': async ({ deliveryId, article }) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          effects.push(deliveryId);
          return { publishedUrl: `https://blog.example.com/${article.slug}` };
        },
      },
      dedup: redisDedupStore(connection(), { keyPrefix: `wcr-test:${randomUUID()}:` }),
      concurrency: 8,
      // Two attempts and a short backoff: runs that met the claim used to dead-letter the copies.
      retry: { attempts: 2, initialDelayMs: 50, maxDelayMs: 200 },
      logger: false,
    });
    try {
      await worker.ready;
      // Hybrid: the job is removed as it completes, and its result read from the event stream.
      const payload = articleSyncPayload({ article: { slug: 'on-a-cluster' } });
      const signed = signDelivery({ token, payload });
      expect((await receiver.handle(signed)).body).toEqual({
        ok: true,
        published_url: 'https://blog.example.com/on-a-cluster',
      });
      expect(await queue.getJob(await bullmqJobId(signed.headers['X-Service-Delivery-Id']!))).toBeUndefined();
      const id = randomUUID();
      const delivery = {
        body: JSON.stringify(payload),
        deliveryId: id,
        timestamp: payload.timestamp,
        event: 'article.sync',
        tokenIndex: 0,
        receivedAt: Date.now(),
      };
      await queue.addBulk(
        Array.from({ length: 10 }, (_, i) => ({ name: 'article.sync', data: delivery, opts: { jobId: `copy-${i}` } })),
      );
      const left = async () => {
        const counts = await queue.getJobCounts('wait', 'delayed', 'active', 'failed');
        return Object.values(counts).reduce((sum, count) => sum + count, 0);
      };
      await until(
        'every copy to finish',
        async () => (await left()) === 0 || (await queue.getFailedCount()) > 0,
        30_000,
      );
      expect(await queue.getFailedCount()).toBe(0);
      expect(effects.filter((effect) => effect === id)).toEqual([id]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 60_000);
});
