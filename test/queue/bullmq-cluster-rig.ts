// The rig of bullmq-cluster-faults.test.ts: one BullMQ queue on a Redis Cluster under a
// hash-tagged prefix, its receiver on node:http, the spawned worker processes
// (worker-bullmq.mjs with CLUSTER_NODES) and what they wrote.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { type ConnectionOptions, Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import type pg from 'pg';
import { createReceiver } from 'webhook-cms-receiver';
import { bullmqQueue } from 'webhook-cms-receiver/bullmq';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import type { RunningCluster } from '../redis/redis-cluster.js';
import type { BullWorkerProcess } from './bullmq-processes.js';
import { freshQueueName } from './queue-helpers.js';

/** The prefix the README tells Cluster users to give BullMQ: every queue key in one slot. */
export const prefix = '{webhooks}';
const token = 'bullmq-cluster-faults-token';

/** One queue on the cluster, its receiver on node:http, the worker processes and their writes. */
export interface Rig {
  queue: Queue;
  /** The environment of worker-bullmq.mjs for this queue. */
  env: Record<string, string>;
  workers: BullWorkerProcess[];
  /** Posts one signed copy; resolves to the HTTP status (0 when the request failed). */
  send(payload: object, deliveryId: string): Promise<number>;
  effects(): Promise<string[]>;
  runs(id: string): Promise<number>;
  close(): Promise<void>;
}

/** Rigs on `cluster`, with run and effect tables in `pool` (PostgreSQL at `databaseUrl`). */
export function clusterRigs(cluster: RunningCluster, pool: pg.Pool, databaseUrl: string) {
  const clients: Cluster[] = [];
  /** An ioredis Cluster on the test cluster, quit by `closeClients`. */
  const clusterClient = () => {
    const client = new Cluster(
      cluster.nodes.map(({ host, port }) => ({ host, port })),
      { redisOptions: { maxRetriesPerRequest: null } },
    );
    client.on('error', () => {});
    clients.push(client);
    return client;
  };
  const closeClients = () => Promise.all(clients.map((client) => client.quit().catch(() => {})));

  async function rig(options: { store?: 'postgres' | 'redis'; env?: Record<string, string> } = {}): Promise<Rig> {
    const table = `wcr_cf_${randomUUID().slice(0, 8)}`;
    const keys = `wcr-test:${randomUUID()}:`;
    await pool.query(`CREATE TABLE ${table}_runs (delivery_id text)`);
    await pool.query(`CREATE TABLE ${table}_effects (delivery_id text)`);
    // BullMQ's types come from its own copy of ioredis, hence the cast.
    const queue = new Queue(freshQueueName('cluster-faults'), {
      connection: clusterClient() as unknown as ConnectionOptions,
      prefix,
    });
    queue.on('error', () => {});
    const app = createReceiver({
      token,
      queue: bullmqQueue(queue),
      dedup: redisDedupStore(clusterClient(), { keyPrefix: `${keys}receiver:` }),
      enqueueTimeoutMs: 5000,
      logger: false,
    });
    const receiver: RunningServer = await listen(createServer(webhookHandler(app)));
    const env = {
      STORE: options.store ?? 'postgres',
      QUEUE: queue.name,
      CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','),
      BULL_PREFIX: prefix,
      REDIS_URL: cluster.nodes[0]!.url,
      DATABASE_URL: databaseUrl,
      TABLE: table,
      PREFIX: keys,
      LOCK_MS: '1000',
      ...options.env,
    };
    const workers: BullWorkerProcess[] = [];
    const redis = clusterClient();
    return {
      queue,
      env,
      workers,
      async send(payload, deliveryId) {
        const signed = signDelivery({ token, payload, deliveryId });
        const response = await fetch(`${receiver.url}/webhook`, {
          method: 'POST',
          headers: signed.headers,
          body: signed.body,
        }).catch(() => undefined);
        await response?.arrayBuffer();
        return response?.status ?? 0;
      },
      // With STORE=redis the worker counts in the cluster, else in PostgreSQL.
      effects: async () =>
        env.STORE === 'redis'
          ? redis.lrange(`${keys}effects`, 0, -1)
          : (await pool.query(`SELECT delivery_id FROM ${table}_effects`)).rows.map((row) => row.delivery_id as string),
      runs: async (id) =>
        env.STORE === 'redis'
          ? Number(await redis.get(`${keys}runs:${id}`))
          : Number(
              (await pool.query(`SELECT count(*) AS n FROM ${table}_runs WHERE delivery_id = $1`, [id])).rows[0].n,
            ),
      async close() {
        await Promise.all(workers.map((worker) => worker.kill()));
        await receiver.close();
        await queue.obliterate({ force: true }).catch(() => {});
        await queue.close();
      },
    };
  }

  /** Drops every client connection on every master (`CLIENT KILL TYPE normal`); how many it dropped. */
  function dropClientConnections(): number {
    let dropped = 0;
    for (const { port } of cluster.nodes) {
      const out = spawnSync('redis-cli', ['-p', String(port), 'CLIENT', 'KILL', 'TYPE', 'normal'], {
        encoding: 'utf8',
      });
      dropped += Number(out.stdout.trim()) || 0;
    }
    return dropped;
  }

  return { rig, clusterClient, closeClients, dropClientConnections };
}
