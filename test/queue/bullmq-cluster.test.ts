import { randomUUID } from 'node:crypto';
import { type ConnectionOptions, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, startWorker } from 'webhook-cms-receiver';
import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
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
});
