import { randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { pgBossJobId, pgBossQueue, pgBossSource } from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { freshTable } from '../postgres/fresh-table.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { freshQueueName } from './queue-helpers.js';
import { tenantsInQueueMode } from './tenant-queue-scenario.js';

const server: StartedPostgres = await startPostgres();
const describeWithServer = (name: string, body: () => void) =>
  server.url ? describe(name, body) : describe.skip(`${name} (skipped: ${HOW_TO_RUN_POSTGRES})`, body);

describeWithServer('queue mode on pg-boss with tenants (contract v4)', () => {
  let pool: pg.Pool;
  let boss: PgBoss;
  const schema = `wcr_boss_${randomUUID().slice(0, 8)}`;
  const workers: QueueWorker[] = [];
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
    boss = new PgBoss({ connectionString: server.url, schema, pollingIntervalSeconds: 0.5 });
    boss.on('error', () => {});
    await boss.start();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await boss?.stop({ graceful: false, wait: true });
    await pool?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await pool?.end();
    await server.stop();
  });

  it('enqueues colliding delivery ids as two jobs carrying their tenant; worker dedup and ordering are per tenant', async () => {
    const name = freshQueueName('boss-tenants');
    const queue = pgBossQueue(boss, name);
    await tenantsInQueueMode({
      queue: () => queue,
      work: (options) => {
        const worker = startWorker(pgBossSource(boss, name, { pollingIntervalSeconds: 0.5 }), {
          ...options,
          logger: false,
        });
        workers.push(worker);
        return worker;
      },
      jobData: async (key) =>
        (await boss.getJobById<{ deliveryId: string; tenant?: string }>(name, await pgBossJobId(key)))?.data,
      store: () => postgresDedupStore(pool, { table: freshTable() }),
    });
  }, 60_000);
});
