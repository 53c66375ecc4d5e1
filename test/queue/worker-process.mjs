// One queue-mode worker process for the multi-process tests, on the built package imported by
// name as a user would. ENGINE picks BullMQ (Redis dedup store) or pg-boss (the /postgres
// transactional store). What a handler does depends on the article's slug:
//   `slow`      takes 3 s;
//   `fail-once` throws on its first run;
//   `hang-once` hangs on its first run until the test kills the process; with pg-boss it first
//               writes its effect inside the transaction, which the kill must roll back.
// Every run is counted outside any transaction, then announced as `running <delivery id>`;
// effects are written where the test reads them: a Redis list, or a table through `tx`.
import { startWorker } from 'webhook-cms-receiver';

const { ENGINE, NAME, QUEUE, REDIS_URL, DATABASE_URL, SCHEMA, PREFIX, TABLE, LOCK_MS, LEASE_MS } = process.env;
const retry = { attempts: 10, initialDelayMs: 200, maxDelayMs: 1000 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line) => process.stdout.write(`${line}\n`);

const engine = ENGINE === 'bullmq' ? await bullmq() : await pgBoss();

const handlers = {
  'article.sync': async (event, context) => {
    const id = event.deliveryId;
    const run = await engine.countRun(id);
    say(`running ${id} ${run}`);
    const slug = event.article.slug;
    if (slug === 'slow') await sleep(3000);
    if (slug === 'fail-once' && run === 1) throw new Error('fails on its first run');
    if (slug === 'hang-once') {
      // Inside the transaction the write before the hang must roll back with the killed process;
      // without one, a write cannot be undone, so the hang comes first.
      if (engine.transactional || run > 1) await engine.effect(id, context);
      if (run === 1) {
        say(`hanging ${id}`);
        await new Promise(() => {});
      }
      return;
    }
    await engine.effect(id, context);
  },
};

const worker = startWorker(engine.source, {
  handlers,
  dedup: engine.dedup,
  ordering: true,
  concurrency: 4,
  retry,
  logger: false,
});
await worker.ready;
say('ready');
process.on('SIGTERM', () => {
  worker.close().then(() => engine.close().then(() => process.exit(0)));
});

async function bullmq() {
  const { Redis } = await import('ioredis');
  const { bullmqSource } = await import('webhook-cms-receiver/bullmq');
  const { redisDedupStore } = await import('webhook-cms-receiver/redis');
  const url = new URL(REDIS_URL);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const lockDuration = Number(LOCK_MS || 30_000);
  return {
    source: bullmqSource({
      queueName: QUEUE,
      connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null },
      lockDuration,
      stalledInterval: Math.max(250, lockDuration / 2),
    }),
    dedup: redisDedupStore(redis, { keyPrefix: `${PREFIX}dedup:`, leaseMs: Number(LEASE_MS || 60_000) }),
    countRun: (id) => redis.incr(`${PREFIX}runs:${id}`),
    effect: (id) => redis.rpush(`${PREFIX}effects`, id),
    close: () => redis.quit(),
  };
}

async function pgBoss() {
  const { default: PgBoss } = await import('pg-boss');
  const { default: pg } = await import('pg');
  const { pgBossSource } = await import('webhook-cms-receiver/pg-boss');
  const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
  pool.on('error', () => {});
  const boss = new PgBoss({ connectionString: DATABASE_URL, schema: SCHEMA, maintenanceIntervalSeconds: 1 });
  boss.on('error', () => {});
  await boss.start();
  return {
    source: pgBossSource(boss, QUEUE, {
      pollingIntervalSeconds: 0.5,
      expireInSeconds: Number(LOCK_MS || 900_000) / 1000,
    }),
    dedup: postgresDedupStore(pool, { transactional: true, table: `${TABLE}_dedup` }),
    countRun: async (id) => {
      const { rows } = await pool.query(
        `INSERT INTO ${TABLE}_runs VALUES ($1) RETURNING (SELECT count(*) + 1 FROM ${TABLE}_runs WHERE delivery_id = $1) AS run`,
        [id],
      );
      return Number(rows[0].run);
    },
    transactional: true,
    effect: (id, context) => context.tx.query(`INSERT INTO ${TABLE}_effects VALUES ($1, $2)`, [id, NAME]),
    close: async () => {
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}
