// One BullMQ worker process for the fault tests, on the built package imported by name as a
// user would. STORE picks the dedup store: `redis` (leases, so a killed worker's claim holds
// until it lapses) or `postgres` (the transactional store: effects written through `tx`).
// What a handler does depends on the article's slug:
//   `hang-once`  hangs on its first run until the test kills the process (with the
//                transactional store it writes its effect first, which the kill rolls back);
//   `slow`       takes SLOW_MS (default 3 s), then writes its effect;
//   `throws`     always throws;
//   anything else writes its effect.
// Every run is counted outside any transaction and announced as `running <id> <run>`; the
// worker's log lines are printed as `log <level> <message>` (with `stack` when one was logged).
// With CLUSTER_NODES (`host:port,…` of a Redis Cluster's masters) BullMQ and the Redis store
// use ioredis `Cluster` clients instead of REDIS_URL, and BULL_PREFIX (hash-tagged) as prefix.
import { startWorker } from 'webhook-cms-receiver';
import { bullmqSource } from 'webhook-cms-receiver/bullmq';

const { STORE, QUEUE, REDIS_URL, DATABASE_URL, TABLE, PREFIX, LOCK_MS, LEASE_MS, ATTEMPTS, SLOW_MS } = process.env;
const { CLUSTER_NODES, BULL_PREFIX } = process.env;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line) => process.stdout.write(`${line}\n`);
const line = (level) => (message, fields) => say(`log ${level} ${message}${fields?.err?.stack ? ' stack' : ''}`);

const store = STORE === 'postgres' ? await postgres() : await redis();
const lockDuration = Number(LOCK_MS || 30_000);

const handlers = {
  'article.sync': async (event, context) => {
    const id = event.deliveryId;
    const run = await store.countRun(id);
    say(`running ${id} ${run}`);
    const slug = event.article.slug;
    if (slug === 'throws') throw new Error('this handler always throws');
    if (slug === 'slow') await sleep(Number(SLOW_MS || 3000));
    if (slug === 'hang-once') {
      if (store.transactional || run > 1) await store.effect(id, context);
      if (run === 1) {
        say(`hanging ${id}`);
        await new Promise(() => {});
      }
      return;
    }
    await store.effect(id, context);
  },
};

const worker = startWorker(
  bullmqSource({
    queueName: QUEUE,
    connection: CLUSTER_NODES ? await clusterClient({ maxRetriesPerRequest: null }) : bullConnection(),
    ...(BULL_PREFIX ? { prefix: BULL_PREFIX } : {}),
    lockDuration,
    stalledInterval: Math.max(250, lockDuration / 2),
  }),
  {
    handlers,
    dedup: store.dedup,
    concurrency: 4,
    retry: { attempts: Number(ATTEMPTS || 10), initialDelayMs: 100, maxDelayMs: 300 },
    logger: { warn: line('warn'), error: line('error') },
    onError: (error, info) =>
      say(`dead ${info.event?.deliveryId ?? 'unreadable'} ${info.deadLettered} ${error.message}`),
  },
);
await worker.ready;
say('ready');
process.on('SIGTERM', () => {
  worker.close().then(() => store.close().then(() => process.exit(0)));
});

async function clusterClient(options) {
  const { Cluster } = await import('ioredis');
  const nodes = CLUSTER_NODES.split(',').map((node) => ({
    host: node.split(':')[0],
    port: Number(node.split(':')[1]),
  }));
  const client = new Cluster(nodes, { redisOptions: options });
  client.on('error', () => {});
  return client;
}

function bullConnection() {
  const url = new URL(REDIS_URL);
  return { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
}

async function redis() {
  const { Redis } = await import('ioredis');
  const { redisDedupStore } = await import('webhook-cms-receiver/redis');
  const client = CLUSTER_NODES
    ? await clusterClient({ maxRetriesPerRequest: null })
    : new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  client.on('error', () => {});
  return {
    dedup: redisDedupStore(client, { keyPrefix: `${PREFIX}dedup:`, leaseMs: Number(LEASE_MS || 60_000) }),
    countRun: (id) => client.incr(`${PREFIX}runs:${id}`),
    effect: (id) => client.rpush(`${PREFIX}effects`, id),
    close: () => client.quit(),
  };
}

async function postgres() {
  const { default: pg } = await import('pg');
  const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
  pool.on('error', () => {});
  return {
    dedup: postgresDedupStore(pool, { transactional: true, table: `${TABLE}_dedup` }),
    countRun: async (id) => {
      const { rows } = await pool.query(
        `INSERT INTO ${TABLE}_runs VALUES ($1) RETURNING (SELECT count(*) + 1 FROM ${TABLE}_runs WHERE delivery_id = $1) AS run`,
        [id],
      );
      return Number(rows[0].run);
    },
    transactional: true,
    effect: (id, context) => context.tx.query(`INSERT INTO ${TABLE}_effects VALUES ($1)`, [id]),
    close: () => pool.end(),
  };
}
