// One pg-boss worker process for the pg-boss fault tests, on the built package imported by name
// as a user would. STORE picks the /postgres store: `transactional` (effects through `tx`) or
// `plain` (effects on the pool, a claim with a lease of LEASE_MS). What a handler does depends
// on the article's slug:
//   `slow`      takes SLOW_MS (default 3 s) before its effect;
//   `hang-once` hangs on its first run until the test kills the process (in the transactional
//               store, after writing its effect through `tx`);
//   `poison`    always throws; `fatal` throws an error marked fatal.
// Every run is counted outside any transaction, then announced as `running <delivery id> <run>`;
// a dead letter is announced as `dead <delivery id>`.
import { startWorker } from 'webhook-cms-receiver';

const { DATABASE_URL, SCHEMA, QUEUE, TABLE, STORE, EXPIRE_S, LEASE_MS, SLOW_MS, RETRY, CONCURRENCY } = process.env;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line) => process.stdout.write(`${line}\n`);
process.on('exit', (code) => say(`exit ${code}`));

const { default: PgBoss } = await import('pg-boss');
const { default: pg } = await import('pg');
const { pgBossSource } = await import('webhook-cms-receiver/pg-boss');
const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
pool.on('error', () => {});
const boss = new PgBoss({ connectionString: DATABASE_URL, schema: SCHEMA, maintenanceIntervalSeconds: 1 });
boss.on('error', (error) => say(`boss-error ${error.message}`));
await boss.start();
const transactional = STORE !== 'plain';

const handlers = {
  'article.sync': async (event, context) => {
    const id = event.deliveryId;
    const { rows } = await pool.query(
      `INSERT INTO ${TABLE}_runs VALUES ($1) RETURNING (SELECT count(*) + 1 FROM ${TABLE}_runs WHERE delivery_id = $1) AS run`,
      [id],
    );
    const run = Number(rows[0].run);
    say(`running ${id} ${run}`);
    const slug = event.article.slug;
    if (slug === 'slow') await sleep(Number(SLOW_MS || 3000));
    // Inside the transaction the effect is written before the hang: the kill must roll it back.
    if (slug === 'hang-once' && run === 1) {
      if (transactional) await context.tx.query(`INSERT INTO ${TABLE}_effects VALUES ($1)`, [id]);
      await new Promise(() => {});
    }
    if (slug === 'poison') throw new Error(`poison job, run ${run}`);
    if (slug === 'fatal') throw Object.assign(new Error('fatal job'), { fatal: true });
    const effect = `INSERT INTO ${TABLE}_effects VALUES ($1)`;
    await (transactional ? context.tx.query(effect, [id]) : pool.query(effect, [id]));
  },
};

const worker = startWorker(
  pgBossSource(boss, QUEUE, {
    pollingIntervalSeconds: 0.5,
    ...(EXPIRE_S ? { expireInSeconds: Number(EXPIRE_S) } : {}),
  }),
  {
    handlers,
    dedup: postgresDedupStore(pool, {
      transactional,
      table: `${TABLE}_dedup`,
      ...(LEASE_MS ? { leaseMs: Number(LEASE_MS) } : {}),
    }),
    concurrency: Number(CONCURRENCY || 4),
    retry: JSON.parse(RETRY || '{"attempts":10,"initialDelayMs":1000}'),
    logger: false,
    onError: (error, info) => {
      if (info.deadLettered) say(`dead ${info.event?.deliveryId} ${error?.message ?? error}`);
    },
  },
);
await worker.ready;
say('ready');
process.on('SIGTERM', () => {
  worker.close().then(async () => {
    await boss.stop({ graceful: false, wait: true });
    await pool.end();
    process.exit(0);
  });
});
