import { randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createReceiver,
  memoryDedupStore,
  type QueueWorker,
  startWorker,
  type WorkerErrorInfo,
} from 'webhook-cms-receiver';
import {
  type PgBossJob,
  pgBossDeadLetterQueue,
  pgBossJobId,
  pgBossQueue,
  pgBossSource,
} from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { freePort } from '../setup/services.js';
import { freshQueueName, until } from './queue-helpers.js';

const token = 'pg-boss-token';

/**
 * Queue mode on one pg-boss major: `pg-boss` as the test file resolves it (pg-boss.test.ts: 10,
 * the newest that runs on Node 20; pg-boss11.test.ts and pg-boss12.test.ts mock it to their
 * alias, on Node 22). `major` is checked against the `PgBoss` the file got.
 */
export async function pgBossScenarios(major: 10 | 11 | 12): Promise<void> {
  const server: StartedPostgres = await startPostgres();
  const describeWithServer = (name: string, body: () => void) =>
    server.url ? describe(name, body) : describe.skip(`${name} (skipped: ${HOW_TO_RUN_POSTGRES})`, body);

  describeWithServer(`queue mode on pg-boss ${major} (contract v3), one process`, () => {
    let pool: pg.Pool;
    let boss: PgBoss;
    const schema = `wcr_boss_${randomUUID().slice(0, 8)}`;
    const workers: QueueWorker[] = [];
    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: server.url, max: 10 });
      pool.on('error', () => {});
      boss = new PgBoss({
        connectionString: server.url,
        schema,
        maintenanceIntervalSeconds: 1,
        pollingIntervalSeconds: 0.5,
      });
      boss.on('error', () => {});
      await boss.start();
    }, 60_000);
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((worker) => worker.close()));
    });
    afterAll(async () => {
      await boss?.stop({ graceful: false, wait: true });
      await pool?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await pool?.end();
      await server.stop();
    });

    const work = (queueName: string, options: Parameters<typeof startWorker<PgBossJob>>[1]) => {
      const worker = startWorker(pgBossSource(boss, queueName, { pollingIntervalSeconds: 0.5 }), options);
      workers.push(worker);
      return worker;
    };
    const fast = { attempts: 2, initialDelayMs: 1000 };
    /** Jobs not yet taken, as pg-boss 10's getQueueSize counted them (11 and 12 have no such call). */
    const queued = async (name: string) =>
      Number(
        (await pool.query(`SELECT count(*) FROM ${schema}.job WHERE name = $1 AND state < 'active'`, [name])).rows[0]
          .count,
      );

    it(`runs on pg-boss ${major}`, async () => {
      const { version } = (await boss.getDb().executeSql(`SELECT version FROM ${schema}.version`, [])).rows[0] as {
        version: number;
      };
      // pg-boss's schema versions: 24 (and below) for 10, 25 to 26 for 11, 27 and up for 12.
      const schemaMajor = version <= 24 ? 10 : version <= 26 ? 11 : 12;
      expect(schemaMajor).toBe(major);
    });

    it('answers queued, sends the job with a UUID made from the delivery id, and a duplicate send is answered duplicate', async () => {
      const name = freshQueueName('boss');
      const payload = articleSyncPayload();
      const deliveryId = randomUUID();
      // Two receivers with stores of their own: the second send finds pg-boss's job by its id.
      const first = createReceiver({ token, queue: pgBossQueue(boss, name) });
      const second = createReceiver({ token, queue: pgBossQueue(boss, name) });
      expect(await first.handle(signDelivery({ token, payload, deliveryId }))).toEqual({
        status: 200,
        body: { ok: true, queued: true },
      });
      expect(await second.handle(signDelivery({ token, payload, deliveryId }))).toEqual({
        status: 200,
        body: { ok: true, queued: true, duplicate: true },
      });
      const job = await boss.getJobById<{ deliveryId: string; body: string }>(name, await pgBossJobId(deliveryId));
      expect(job?.data.deliveryId).toBe(deliveryId);
      expect(JSON.parse(job!.data.body)).toEqual(payload);
      expect(await queued(name)).toBe(1);
    });

    it('answers 503 when pg-boss cannot take the job, and nothing is recorded', async () => {
      const down = new PgBoss({ connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`, schema });
      down.on('error', () => {});
      const store = memoryDedupStore();
      const receiver = createReceiver({ token, dedup: store, queue: pgBossQueue(down, 'anything'), onError: () => {} });
      const signed = signDelivery({ token, payload: articleSyncPayload() });
      expect(await receiver.handle(signed)).toEqual({ status: 503, body: { error: 'Queue unavailable' } });
      // The claim was released: the same store lets the retry through to a working engine.
      const up = createReceiver({ token, dedup: store, queue: pgBossQueue(boss, freshQueueName('up')) });
      expect((await up.handle(signed)).body).toEqual({ ok: true, queued: true });
    });

    it('with the transactional store: the handler write, the done row and the job completion commit together; a throw retries', async () => {
      const name = freshQueueName('tx');
      const table = `wcr_effects_${randomUUID().slice(0, 8)}`;
      await pool.query(`CREATE TABLE ${table} (delivery_id text PRIMARY KEY, run int)`);
      const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry: fast }) });
      const flaky = randomUUID();
      const steady = randomUUID();
      const runs = new Map<string, number>();
      work(name, {
        retry: fast,
        logger: false,
        dedup: postgresDedupStore(pool, { transactional: true, table: `wcr_dedup_${randomUUID().slice(0, 8)}` }),
        handlers: {
          'article.sync': async ({ deliveryId }, { tx }) => {
            const run = (runs.get(deliveryId) ?? 0) + 1;
            runs.set(deliveryId, run);
            await (tx as pg.PoolClient).query(`INSERT INTO ${table} VALUES ($1, $2)`, [deliveryId, run]);
            // The insert above rolls back with this throw: the retry inserts again without a conflict.
            if (deliveryId === flaky && run === 1) throw new Error('fails after writing');
          },
        },
      });
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: flaky }));
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: steady }));
      await until(
        'both effects',
        async () => Number((await pool.query(`SELECT count(*) FROM ${table}`)).rows[0].count) === 2,
        20_000,
      );
      const rows = (await pool.query(`SELECT delivery_id, run FROM ${table} ORDER BY run`)).rows;
      expect(rows).toEqual([
        { delivery_id: steady, run: 1 },
        { delivery_id: flaky, run: 2 },
      ]);
      await until('both jobs completed', async () => {
        const jobs = await Promise.all([flaky, steady].map(async (id) => boss.getJobById(name, await pgBossJobId(id))));
        return jobs.every((job) => job?.state === 'completed');
      });
      const job = await boss.getJobById(name, await pgBossJobId(flaky));
      expect(job?.retryCount).toBe(1);
      // Completed through the handler's transaction, not by pg-boss after it.
      expect(job?.output).toEqual({ ok: true, completedIn: 'the dedup transaction' });
    });

    it('hybrid answers (queueWaitMs) read the job output, also when it was completed in the dedup transaction', async () => {
      const name = freshQueueName('hybrid');
      const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry: fast }), queueWaitMs: 4000 });
      work(name, {
        retry: fast,
        dedup: postgresDedupStore(pool, { transactional: true, table: `wcr_dedup_${randomUUID().slice(0, 8)}` }),
        handlers: { 'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }) },
      });
      const signed = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'hybrid' } }) });
      expect(await receiver.handle(signed)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/hybrid' },
      });
    });

    it('dead-letters a job that always fails into <name>_dead, telling onError once; a fatal error goes there at once', async () => {
      const name = freshQueueName('dead');
      const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry: fast }) });
      const always = randomUUID();
      const fatal = randomUUID();
      const runs = new Map<string, number>();
      const dead: WorkerErrorInfo<PgBossJob>[] = [];
      work(name, {
        retry: fast,
        logger: false,
        onError: (_error, info) => dead.push(info),
        handlers: {
          'article.sync': ({ deliveryId }) => {
            runs.set(deliveryId, (runs.get(deliveryId) ?? 0) + 1);
            throw deliveryId === fatal ? Object.assign(new Error('never works'), { fatal: true }) : new Error('fails');
          },
        },
      });
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: always }));
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId: fatal }));
      const deadLetters = pgBossDeadLetterQueue(name);
      await until('two dead letters', async () => (await queued(deadLetters)) === 2, 20_000);
      expect(runs.get(always)).toBe(2);
      expect(runs.get(fatal)).toBe(1);
      expect(dead.map((info) => [info.event?.deliveryId, info.attempt]).sort()).toEqual(
        [
          [always, 2],
          [fatal, 1],
        ].sort(),
      );
      const letters = await boss.fetch<{ deliveryId: string }>(deadLetters, { batchSize: 10 });
      expect(letters.map((job) => job.data.deliveryId).sort()).toEqual([always, fatal].sort());
    });
  });
}
