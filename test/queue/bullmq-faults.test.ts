// The BullMQ fault matrix (issue 31): one row per fault, each on real Redis, real PostgreSQL
// and spawned worker processes running the built package. For every row: no worker process
// exits, every delivery answered 200 is processed once the fault clears (nothing restarted by
// hand), each effect happens once with the transactional Postgres store, and the attempts a
// fault costs are bounded.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue } from 'webhook-cms-receiver/bullmq';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { freePort } from '../setup/services.js';
import { type BullWorkerProcess, killRedis, startBullWorker, startDurableRedis } from './bullmq-processes.js';
import { freshQueueName, redisUrl, until } from './queue-helpers.js';

const built = existsSync(fileURLToPath(new URL('../../dist/bullmq.js', import.meta.url)));
const token = 'bullmq-faults-token';
const postgresServer: StartedPostgres = await startPostgres();
afterAll(() => postgresServer.stop());
const ready = Boolean(redisUrl && postgresServer.url && built);
const describeReady = ready
  ? describe
  : describe.skip.bind(describe, '(skipped: needs REDIS_URL, PostgreSQL and `npx tsup` for dist/)');

/** One queue, its receiver on node:http, the worker processes and what they wrote. */
interface Rig {
  queue: Queue;
  receiver: RunningServer;
  env: Record<string, string>;
  workers: BullWorkerProcess[];
  /** Posts one signed copy; resolves to the HTTP status. */
  send(payload: object, deliveryId: string): Promise<number>;
  effects(): Promise<string[]>;
  runs(id: string): Promise<number>;
  close(): Promise<void>;
}

let pool: pg.Pool;
beforeAll(() => {
  if (ready) pool = new pg.Pool({ connectionString: postgresServer.url, max: 4 });
});
afterAll(() => pool?.end());

async function rig(options: { port?: number; store?: 'postgres' | 'redis'; env?: Record<string, string> } = {}) {
  const url = options.port ? `redis://127.0.0.1:${options.port}` : redisUrl!;
  const { hostname, port } = new URL(url);
  const table = `wcr_f_${randomUUID().slice(0, 8)}`;
  const prefix = `wcr-test:${randomUUID()}:`;
  await pool.query(`CREATE TABLE ${table}_runs (delivery_id text)`);
  await pool.query(`CREATE TABLE ${table}_effects (delivery_id text)`);
  const connection = { host: hostname, port: Number(port), retryStrategy: () => 100 };
  const queue = new Queue(freshQueueName('faults'), {
    connection: { ...connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 },
  });
  queue.on('error', () => {});
  const redis = new Redis(url, { ...connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  const app = createReceiver({
    token,
    queue: bullmqQueue(queue),
    dedup: redisDedupStore(redis, { keyPrefix: `${prefix}receiver:` }),
    enqueueTimeoutMs: 2000,
    logger: false,
  });
  const receiver = await listen(createServer(webhookHandler(app)));
  const env = {
    STORE: options.store ?? 'postgres',
    QUEUE: queue.name,
    REDIS_URL: url,
    DATABASE_URL: postgresServer.url!,
    TABLE: table,
    PREFIX: prefix,
    LOCK_MS: '1000',
    ...options.env,
  };
  const effects = async () =>
    (await pool.query(`SELECT delivery_id FROM ${table}_effects`)).rows.map((row) => row.delivery_id as string);
  const runs = async (id: string) =>
    Number((await pool.query(`SELECT count(*) AS n FROM ${table}_runs WHERE delivery_id = $1`, [id])).rows[0].n);
  const workers: BullWorkerProcess[] = [];
  const result: Rig = {
    queue,
    receiver,
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
    effects,
    runs,
    async close() {
      await Promise.all(workers.map((worker) => worker.kill()));
      await receiver.close();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await redis.quit().catch(() => {});
    },
  };
  return result;
}

/** Runs counted in Redis by worker-bullmq.mjs with STORE=redis. */
const redisCounter = (env: Record<string, string>) => {
  const redis = new Redis(env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  return {
    runs: async (id: string) => Number(await redis.get(`${env.PREFIX}runs:${id}`)),
    effects: () => redis.lrange(`${env.PREFIX}effects`, 0, -1),
    close: () => redis.quit(),
  };
};

const hangOnce = () => articleSyncPayload({ article: { slug: 'hang-once' } });
const plain = (i: number) => articleSyncPayload({ article: { slug: `post-${i}` } });
const alive = (r: Rig) => r.workers.every((worker) => worker.alive());

describeReady('BullMQ fault matrix (Redis, PostgreSQL, spawned workers)', () => {
  it('worker SIGKILL mid-job, Redis store (the claim outlives the worker): deferred, not dead-lettered; one attempt lost', async () => {
    // Two attempts, 100–300 ms backoff and a 3 s lease: each run that met the dead worker's
    // claim used to count, so the crash dead-lettered the delivery before the lease lapsed.
    const r = await rig({ store: 'redis', env: { ATTEMPTS: '2', LEASE_MS: '3000' } });
    const counter = redisCounter(r.env);
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      expect(await r.send(hangOnce(), id)).toBe(200);
      const hanging = await Promise.any(
        r.workers.map((w, i) => w.waitFor(new RegExp(`^hanging ${id}$`)).then(() => i)),
      );
      await r.workers[hanging]!.kill();
      const survivor = r.workers[1 - hanging]!;
      const job = await r.queue.getJob(await bullmqJobId(id));
      await until(
        'the job to finish',
        async () =>
          ((await job!.getState()) !== 'active' && (await counter.effects()).includes(id)) ||
          (await job!.getState()) === 'failed',
        30_000,
      );
      expect(await job!.getState()).not.toBe('failed');
      expect(await counter.effects()).toEqual([id]);
      expect(await counter.runs(id)).toBe(2);
      expect(survivor.alive()).toBe(true);
      // Logged as a warning without a stack trace, never as an error.
      const deferred = survivor.lines.filter((line) => line.includes(id) && line.startsWith('log warn'));
      expect(deferred.length).toBeGreaterThan(0);
      expect(deferred.some((line) => line.endsWith(' stack'))).toBe(false);
      expect(survivor.lines.filter((line) => line.startsWith('log error') || line.startsWith('dead'))).toEqual([]);
    } finally {
      await counter.close();
      await r.close();
    }
  }, 60_000);

  it('worker SIGKILL mid-job, transactional store: the killed write rolls back, the effect happens once', async () => {
    const r = await rig({ env: { ATTEMPTS: '2' } });
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      expect(await r.send(hangOnce(), id)).toBe(200);
      const hanging = await Promise.any(
        r.workers.map((w, i) => w.waitFor(new RegExp(`^hanging ${id}$`)).then(() => i)),
      );
      await r.workers[hanging]!.kill();
      r.workers.splice(hanging, 1);
      await until('the effect', async () => (await r.effects()).includes(id), 30_000);
      expect(await r.effects()).toEqual([id]);
      expect(await r.runs(id)).toBe(2);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  describe('on a Redis of its own, killed and started again (append-only, fsync always)', () => {
    const dir = mkdtempSync(`${tmpdir()}/wcr-faults-`);
    let redis: ChildProcess;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      redis = await startDurableRedis(port, dir);
    });
    afterAll(async () => {
      if (redis) await killRedis(redis);
      rmSync(dir, { recursive: true, force: true });
    });

    it('Redis restart mid-job: the running job and those accepted before finish after Redis returns, once each', async () => {
      const r = await rig({ port, env: { SLOW_MS: '1500' } });
      try {
        r.workers.push(await startBullWorker(r.env));
        const slow = randomUUID();
        expect(await r.send(articleSyncPayload({ article: { slug: 'slow' } }), slow)).toBe(200);
        await r.workers[0]!.waitFor(new RegExp(`^running ${slow} 1$`));
        const ids = Array.from({ length: 10 }, () => randomUUID());
        const accepted: string[] = [slow];
        for (const [i, id] of ids.entries()) if ((await r.send(plain(i), id)) === 200) accepted.push(id);
        await killRedis(redis);
        // While Redis is down the receiver refuses (503): nothing is accepted that could be lost.
        const refused = randomUUID();
        expect(await r.send(plain(99), refused)).toBe(503);
        redis = await startDurableRedis(port, dir);
        await until(
          'every accepted delivery',
          async () => {
            const effects = await r.effects();
            return accepted.every((id) => effects.includes(id));
          },
          60_000,
        );
        const effects = await r.effects();
        expect(effects.length).toBe(new Set(effects).size);
        // The outage is reported as a warning, once per message, not as an error.
        const lines = r.workers[0]!.lines;
        expect(lines.filter((line) => /^log warn .*worker: BullMQ on queue /.test(line)).length).toBeGreaterThan(0);
        expect(lines.filter((line) => line.startsWith('log error'))).toEqual([]);
        // Bounded: the outage costs a job at most the run it interrupted.
        for (const id of accepted) expect(await r.runs(id)).toBeLessThanOrEqual(2);
        expect(alive(r)).toBe(true);
      } finally {
        await r.close();
      }
    }, 90_000);

    it('connection loss while idle: deliveries accepted after Redis returns are processed', async () => {
      const r = await rig({ port });
      try {
        r.workers.push(await startBullWorker(r.env));
        await killRedis(redis);
        redis = await startDurableRedis(port, dir);
        const ids = Array.from({ length: 5 }, () => randomUUID());
        await until('the receiver to accept again', async () => (await r.send(plain(0), ids[0]!)) === 200, 30_000);
        for (const [i, id] of ids.slice(1).entries()) expect(await r.send(plain(i + 1), id)).toBe(200);
        await until('every effect', async () => (await r.effects()).length === ids.length, 30_000);
        expect((await r.effects()).sort()).toEqual([...ids].sort());
        expect(alive(r)).toBe(true);
      } finally {
        await r.close();
      }
    }, 60_000);
  });

  it('a 10 MiB body (the receiver’s default limit): accepted, processed once', async () => {
    const r = await rig();
    try {
      r.workers.push(await startBullWorker(r.env));
      const id = randomUUID();
      // Exactly 10 MiB as signed: the largest body the receiver accepts by default.
      const envelope = signDelivery({ token, payload: articleSyncPayload({ article: { content_html: '' } }) }).body;
      const html = 'x'.repeat(10 * 1024 * 1024 - Buffer.byteLength(envelope));
      const payload = articleSyncPayload({ article: { content_html: html } });
      expect(Buffer.byteLength(signDelivery({ token, payload }).body)).toBe(10 * 1024 * 1024);
      expect(await r.send(payload, id)).toBe(200);
      await until('the effect', async () => (await r.effects()).includes(id), 30_000);
      expect(await r.effects()).toEqual([id]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('poison jobs: a body that cannot be rebuilt and a handler that always throws are dead-lettered with the reason', async () => {
    const r = await rig({ env: { ATTEMPTS: '3' } });
    try {
      r.workers.push(await startBullWorker(r.env));
      await r.queue.add(
        'article.sync',
        {
          body: '{not json',
          deliveryId: 'poison-body',
          timestamp: 0,
          event: 'article.sync',
          tokenIndex: 0,
          receivedAt: 0,
        },
        { jobId: await bullmqJobId('poison-body') },
      );
      const throws = randomUUID();
      expect(await r.send(articleSyncPayload({ article: { slug: 'throws' } }), throws)).toBe(200);
      await until('both dead letters', async () => (await r.queue.getFailedCount()) === 2, 30_000);
      const failed = await r.queue.getFailed();
      const reasons = Object.fromEntries(failed.map((job) => [job.id, job.failedReason]));
      expect(reasons[await bullmqJobId('poison-body')]).toMatch(/not valid JSON/);
      expect(reasons[await bullmqJobId(throws)]).toMatch(/this handler always throws/);
      expect(await r.runs(throws)).toBe(3);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('40 concurrent copies of one delivery, to the receiver and as 40 jobs: one effect', async () => {
    const r = await rig();
    try {
      r.workers.push(...(await Promise.all([startBullWorker(r.env), startBullWorker(r.env)])));
      const id = randomUUID();
      const payload = articleSyncPayload({ article: { slug: 'slow' } });
      const statuses = await Promise.all(Array.from({ length: 40 }, () => r.send(payload, id)));
      // A copy that meets another being enqueued gets 409, which the service retries.
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
      // The same delivery as 40 distinct jobs: the workers meet each other's claim and defer.
      const body = JSON.stringify(payload);
      const delivery = {
        body,
        deliveryId: id,
        timestamp: payload.timestamp,
        event: 'article.sync',
        tokenIndex: 0,
        receivedAt: Date.now(),
      };
      await r.queue.addBulk(
        Array.from({ length: 40 }, (_, i) => ({ name: 'article.sync', data: delivery, opts: { jobId: `copy-${i}` } })),
      );
      const pending = async () => {
        const counts = await r.queue.getJobCounts('wait', 'delayed', 'active', 'failed');
        return (counts.wait ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0);
      };
      await until(
        'every job to finish',
        async () => (await pending()) === 0 || (await r.queue.getFailedCount()) > 0,
        60_000,
      );
      expect(await r.queue.getFailedCount()).toBe(0);
      expect(await r.effects()).toEqual([id]);
      expect(alive(r)).toBe(true);
    } finally {
      await r.close();
    }
  }, 90_000);
});
