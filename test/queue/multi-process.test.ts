import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type DeliveryQueue, type DedupStore } from 'webhook-cms-receiver';
import { bullmqQueue } from 'webhook-cms-receiver/bullmq';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { pgBossQueue } from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, type SignedDelivery, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { bullConnection, freshQueueName, redisUrl, until } from './queue-helpers.js';
import { childLines } from '../helpers/child-lines.js';

const script = fileURLToPath(new URL('./worker-process.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../dist/bullmq.js', import.meta.url));
const token = 'multi-process-queue-token';
const postgresServer: StartedPostgres = await startPostgres();
// After every describe's own afterAll: the workers and pools close before their server does.
afterAll(() => postgresServer.stop());

/** How one engine is set up for these tests, and how the test reads what the workers did. */
interface Engine {
  queue: DeliveryQueue;
  receiverStore: DedupStore;
  env: Record<string, string>;
  /** Runs counted per delivery id, in every process, killed ones included. */
  runs(): Promise<Map<string, number>>;
  /** Effects written, one entry per effect (a delivery id). */
  effects(): Promise<string[]>;
  close(): Promise<void>;
}

async function bullmqEngine(): Promise<Engine> {
  const name = freshQueueName('multi');
  const prefix = `wcr-test:${randomUUID()}:`;
  const queue = new Queue(name, { connection: bullConnection() });
  const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
  return {
    queue: bullmqQueue(queue),
    receiverStore: redisDedupStore(redis, { keyPrefix: `${prefix}receiver:` }),
    env: { ENGINE: 'bullmq', QUEUE: name, REDIS_URL: redisUrl!, PREFIX: prefix, LOCK_MS: '1000', LEASE_MS: '1500' },
    async runs() {
      const keys = await redis.keys(`${prefix}runs:*`);
      const values = keys.length ? await redis.mget(keys) : [];
      return new Map(keys.map((key, i) => [key.slice(`${prefix}runs:`.length), Number(values[i])]));
    },
    effects: () => redis.lrange(`${prefix}effects`, 0, -1),
    async close() {
      await queue.obliterate({ force: true });
      await queue.close();
      await redis.quit();
    },
  };
}

async function pgBossEngine(): Promise<Engine> {
  const url = postgresServer.url!;
  const name = freshQueueName('multi').replaceAll('-', '_');
  const schema = `wcr_boss_${randomUUID().slice(0, 8)}`;
  const table = `wcr_q_${randomUUID().slice(0, 8)}`;
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  pool.on('error', () => {});
  await pool.query(`CREATE TABLE ${table}_runs (delivery_id text)`);
  await pool.query(`CREATE TABLE ${table}_effects (delivery_id text, worker text)`);
  const boss = new PgBoss({ connectionString: url, schema });
  boss.on('error', () => {});
  await boss.start();
  return {
    queue: pgBossQueue(boss, name, { retry: { attempts: 10, initialDelayMs: 200 } }),
    receiverStore: postgresDedupStore(pool, { table: `${table}_receiver` }),
    env: { ENGINE: 'pg-boss', QUEUE: name, DATABASE_URL: url, SCHEMA: schema, TABLE: table, LOCK_MS: '2000' },
    async runs() {
      const { rows } = await pool.query(`SELECT delivery_id, count(*) AS n FROM ${table}_runs GROUP BY delivery_id`);
      return new Map(rows.map((row) => [row.delivery_id as string, Number(row.n)]));
    },
    async effects() {
      return (await pool.query(`SELECT delivery_id FROM ${table}_effects`)).rows.map(
        (row) => row.delivery_id as string,
      );
    },
    async close() {
      await boss.stop({ graceful: false, wait: true });
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await pool.end();
    },
  };
}

/** A worker process, and the lines it printed. */
interface WorkerProcess {
  child: ChildProcess;
  waitFor(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

function startWorkerProcess(name: string, env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, NAME: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { waitFor, exited } = childLines(child, `worker ${name}`);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return waitFor(/^ready$/).then(() => ({ child, waitFor, stop }));
}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['BullMQ on Redis', bullmqEngine, Boolean(redisUrl)],
  ['pg-boss on PostgreSQL with the transactional store', pgBossEngine, Boolean(postgresServer.url)],
];

describe.each(engines)('queue mode with two worker processes: %s', (_label, makeEngine, available) => {
  const maybe = available && existsSync(built) ? it : it.skip;
  let engine: Engine;
  let receiver: RunningServer;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    if (!available || !existsSync(built)) return;
    engine = await makeEngine();
    const app = createReceiver({ token, queue: engine.queue, dedup: engine.receiverStore });
    receiver = await listen(createServer(webhookHandler(app)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await receiver?.close();
    await engine?.close();
  });
  /**
   * Untimed, before the timed batch: what the first deliveries of a process pay once, and which
   * is not the answer's cost. Eight concurrent deliveries run the whole path (receiver, dedup
   * store, engine, both workers): code compiled, Lua scripts loaded, the `pg` and pg-boss pools
   * filled; 60 concurrent refused requests open the 60 kept-alive sockets the batch reuses.
   * The first delivery of a process alone took 30–370 ms here.
   */
  const warmUp = async () => {
    const ids: string[] = Array.from({ length: 8 }, () => randomUUID());
    const warm = await Promise.all(
      ids.map((id, i) => send(articleSyncPayload({ article: { slug: `warm-${i}` } }), id)),
    );
    expect(warm.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    await until('the warm-up effects', async () => {
      const effects = await engine.effects();
      return ids.every((id) => effects.includes(id));
    });
    const refused = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const signed = signDelivery({ token: 'not-the-token', payload: articleSyncPayload() });
        const response = await fetch(`${receiver.url}/webhook`, {
          method: 'POST',
          headers: signed.headers,
          body: signed.body,
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(refused.every((status) => status === 401)).toBe(true);
    return ids;
  };
  const post = async (signed: SignedDelivery, deliveryId: string) => {
    const started = performance.now();
    const response = await fetch(`${receiver.url}/webhook`, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
    });
    return { status: response.status, body: await response.json(), ms: performance.now() - started, deliveryId };
  };
  const send = (payload: object, deliveryId: string) => post(signDelivery({ token, payload, deliveryId }), deliveryId);
  /** All signed first, then all sent at once: no answer's time includes signing the others. */
  const sendAll = (list: Array<{ payload: object; deliveryId: string }>) => {
    const signed = list.map(({ payload, deliveryId }) => signDelivery({ token, payload, deliveryId }));
    return Promise.all(signed.map((delivery, i) => post(delivery, list[i]!.deliveryId)));
  };

  maybe(
    '60 deliveries, 10 redeliveries, a 3 s handler and one failing once: answered at once, each effect exactly once',
    async () => {
      workers.push(...(await Promise.all([startWorkerProcess('a', engine.env), startWorkerProcess('b', engine.env)])));
      const payloads = Array.from({ length: 60 }, (_, i) => {
        const slug = i === 0 ? 'slow' : i === 1 ? 'fail-once' : `post-${i}`;
        return { payload: articleSyncPayload({ article: { slug } }), deliveryId: randomUUID() };
      });
      const warmIds = await warmUp();
      const answers = await sendAll(payloads);
      const redeliveries = await sendAll(payloads.slice(0, 10));
      const slowAnsweredBeforeItsEffect = !(await engine.effects()).includes(payloads[0]!.deliveryId);

      expect(answers.map((answer) => answer.body)).toEqual(payloads.map(() => ({ ok: true, queued: true })));
      expect(redeliveries.map((answer) => answer.body)).toEqual(
        payloads.slice(0, 10).map(() => ({ ok: true, queued: true, duplicate: true })),
      );
      // The answer never waits for a handler: the 3 s one was answered before it finished.
      expect(slowAnsweredBeforeItsEffect).toBe(true);
      // How fast the answers come is the bench's question (queue mode's answer p99), not this
      // test's: a wall-clock bound fails on a loaded machine (1,012 ms at load 16 against a 1 s
      // bound). That no answer waited for a handler is shown above by the event order.
      const slowest = Math.max(...[...answers, ...redeliveries].map((answer) => answer.ms));
      if (process.env.WCR_TEST_TIMINGS) console.log(`slowest answer: ${slowest.toFixed(0)} ms`);

      await until('every effect', async () => (await engine.effects()).length >= 60 + warmIds.length, 30_000);
      const effects = (await engine.effects()).filter((id) => !warmIds.includes(id));
      expect([...effects].sort()).toEqual(payloads.map(({ deliveryId }) => deliveryId).sort());
      const runs = await engine.runs();
      expect(runs.get(payloads[1]!.deliveryId)).toBe(2);
      expect([...runs.values()].filter((n) => n !== 1)).toEqual([2]);
    },
    60_000,
  );

  maybe(
    "a worker stopped with SIGTERM mid-job (the docs' handler: close, then exit) finishes the job first: one run, one effect",
    async () => {
      const stopping = await startWorkerProcess('sigterm', engine.env);
      const deliveryId = randomUUID();
      // Only this worker runs now, so the slow job is its own.
      const others = workers.splice(0);
      await Promise.all(others.map((worker) => worker.stop()));
      await send(articleSyncPayload({ article: { slug: 'slow' } }), deliveryId);
      await stopping.waitFor(new RegExp(`^running ${deliveryId}`));
      const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', (code) => resolve(code)));
      stopping.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // It finished the job before exiting: nothing is left for another worker to run again.
      expect((await engine.runs()).get(deliveryId)).toBe(1);
      expect((await engine.effects()).filter((id) => id === deliveryId)).toEqual([deliveryId]);
    },
    60_000,
  );

  maybe(
    'a worker killed with SIGKILL mid-job: the other worker finishes the job, with exactly one effect',
    async () => {
      while (workers.length < 2) workers.push(await startWorkerProcess(`w${workers.length}`, engine.env));
      const deliveryId = randomUUID();
      expect((await send(articleSyncPayload({ article: { slug: 'hang-once' } }), deliveryId)).body).toEqual({
        ok: true,
        queued: true,
      });
      const hanging = await Promise.any(
        workers.map((worker, i) => worker.waitFor(new RegExp(`^hanging ${deliveryId}$`)).then(() => i)),
      );
      await workers[hanging]!.stop();
      await until(
        'the job to be finished by the other worker',
        async () => (await engine.runs()).get(deliveryId) === 2,
        30_000,
      );
      await until('its effect', async () => (await engine.effects()).includes(deliveryId), 30_000);
      // pg-boss: the killed run wrote its row inside the transaction, which died with its connection.
      expect((await engine.effects()).filter((id) => id === deliveryId)).toEqual([deliveryId]);
    },
    60_000,
  );
});
