// The dedup store each soak process uses (`--store`) and where its handlers record their
// effect, keyed by delivery id: an append-only file per process for the memory and DynamoDB stores, a Redis
// hash for Redis, a table for Postgres (written through the handler's `tx` in the transactional
// mode, so the effect commits with the done row). `readEffects` is the judge's side: delivery
// id → how many times its effect was recorded.

import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Short leases, so a SIGKILLed process's claims free within the driver's retries. */
export const LEASE_MS = 5_000;
const EFFECTS_KEY = 'soak:effects';
const EFFECTS_TABLE = 'soak_effects';

async function redisClient(url) {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {}); // a restart is expected: the store answers 503 meanwhile
  return client;
}

const DYNAMODB_TABLE = 'soak-dedup';

/** A DynamoDB client for DynamoDB Local; quick retries, so a restart shows as a 503 and not a hang. */
async function dynamoClient(url) {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  return new DynamoDBClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'soak', secretAccessKey: 'soak' },
    maxAttempts: 2,
  });
}

async function pgPool(url) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  pool.on('error', () => {});
  return pool;
}

/**
 * `{ dedup, record(deliveryId, context), close() }` for one process. `name` tells the memory
 * store's effect files apart. `--sabotage lose|twice` (a check of the judge itself) skips or
 * doubles one effect in fifty, which the run must report as breaches.
 */
export async function openStore(config, name) {
  const store = await open(config, name);
  if (!config.sabotage) return store;
  let n = 0;
  const record = store.record;
  store.record = async (id, context) => {
    if (++n % 50 === 0 && config.sabotage === 'lose') return;
    if (n % 50 === 0 && config.sabotage === 'twice') await record(id, context);
    await record(id, context);
  };
  return store;
}

async function open(config, name) {
  if (config.store === 'memory') {
    const { memoryDedupStore } = await import('webhook-cms-receiver');
    const file = join(config.dir, `effects-${name}-${process.pid}.log`);
    return {
      dedup: memoryDedupStore({ leaseMs: LEASE_MS, maxEntries: config.memoryEntries }),
      record: (id) => appendFileSync(file, `${id}\n`),
      close: async () => {},
    };
  }
  if (config.store === 'dynamodb') {
    const { dynamoDbDedupStore } = await import('webhook-cms-receiver/dynamodb');
    const file = join(config.dir, `effects-${name}-${process.pid}.log`);
    return {
      dedup: dynamoDbDedupStore(await dynamoClient(config.dynamoDbUrl), { table: DYNAMODB_TABLE, leaseMs: LEASE_MS }),
      record: (id) => appendFileSync(file, `${id}\n`),
      close: async () => {},
    };
  }
  if (config.store === 'redis') {
    const { redisDedupStore } = await import('webhook-cms-receiver/redis');
    const redis = await redisClient(config.redisUrl);
    return {
      dedup: redisDedupStore(redis, { keyPrefix: 'soak:dedup:', leaseMs: LEASE_MS }),
      record: (id) => redis.hincrby(EFFECTS_KEY, id, 1),
      close: () => redis.quit().catch(() => {}),
    };
  }
  const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
  const pool = await pgPool(config.databaseUrl);
  const transactional = config.store === 'postgres-tx';
  const insert = `INSERT INTO ${EFFECTS_TABLE} (delivery_id, process) VALUES ($1, $2)`;
  return {
    dedup: postgresDedupStore(pool, { transactional, table: 'soak_dedup', leaseMs: LEASE_MS }),
    record: (id, context) => (transactional ? context.tx : pool).query(insert, [id, name]),
    close: () => pool.end().catch(() => {}),
  };
}

/** Creates what the stores and effects need before any process starts (the DynamoDB table, the Postgres table). */
export async function prepareEffects(config) {
  if (config.store === 'dynamodb') {
    const { CreateTableCommand, UpdateTimeToLiveCommand } = await import('@aws-sdk/client-dynamodb');
    const { dynamoDbTableInput, dynamoDbTimeToLiveInput } = await import('webhook-cms-receiver/dynamodb');
    const client = await dynamoClient(config.dynamoDbUrl);
    // As the docs say: the table, then its Time to Live (the store refuses a table without it).
    await client.send(new CreateTableCommand(dynamoDbTableInput(DYNAMODB_TABLE)));
    await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(DYNAMODB_TABLE)));
    client.destroy();
    return;
  }
  if (config.store !== 'postgres' && config.store !== 'postgres-tx') return;
  const pool = await pgPool(config.databaseUrl);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${EFFECTS_TABLE} (delivery_id text NOT NULL, process text)`);
  await pool.end();
}

/** Delivery id → number of recorded effects, read after the run has drained. */
export async function readEffects(config) {
  const counts = new Map();
  const add = (id, n = 1) => counts.set(id, (counts.get(id) ?? 0) + n);
  if (config.store === 'memory' || config.store === 'dynamodb') {
    for (const file of readdirSync(config.dir).filter((f) => f.startsWith('effects-'))) {
      for (const id of readFileSync(join(config.dir, file), 'utf8').split('\n')) if (id) add(id);
    }
  } else if (config.store === 'redis') {
    const redis = await redisClient(config.redisUrl);
    const all = await redis.hgetall(EFFECTS_KEY);
    for (const [id, n] of Object.entries(all)) add(id, Number(n));
    await redis.quit();
  } else {
    const pool = await pgPool(config.databaseUrl);
    const { rows } = await pool.query(`SELECT delivery_id, count(*)::int AS n FROM ${EFFECTS_TABLE} GROUP BY 1`);
    for (const row of rows) add(row.delivery_id, row.n);
    await pool.end();
  }
  return counts;
}
