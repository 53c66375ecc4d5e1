// handle() at 1 KiB with each dedup store this package ships, one delivery at a time, every
// delivery new (a fresh id and signature, so each one claims and completes): memory, Redis,
// Redis Cluster, Postgres (plain and transactional, `pg` Pool) and PGlite (plain and
// transactional). Timed in wall time, since a store's time is mostly spent waiting on its
// server; rounds interleave the stores. Round trips (Redis scripts) and statements (Postgres,
// BEGIN and COMMIT included) per delivery are counted in a separate, untimed pass, the way
// test/redis and test/postgres count them. A store whose server cannot be had is left out,
// saying why. The Durable Object store needs workerd and is not benched here.

import { createReceiver } from 'webhook-cms-receiver';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { startPostgres, startRedis, startRedisCluster } from '../lib/services.mjs';

const handlers = { 'article.sync': () => {} };

// The clients are imported when this suite runs, never at the bench's start: merely importing
// node-redis made every promise-returning contender slower for the rest of the process
// (verify() at 1 KiB measured 0.82× of the limit after `import 'redis'`, 1.08× without).
let pg;
let PGlite;
let redisClients;
let postgresDedupStore;
let redisDedupStore;
async function loadClients() {
  pg = (await import('pg')).default;
  ({ PGlite } = await import('@electric-sql/pglite'));
  redisClients = await import('redis');
  ({ postgresDedupStore } = await import('webhook-cms-receiver/postgres'));
  ({ redisDedupStore } = await import('webhook-cms-receiver/redis'));
}

/** A Proxy that counts calls of the client's methods whose names match `pattern`. */
function counting(client, pattern, counter) {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !pattern.test(String(property))) return value;
      return (...args) => {
        counter.count++;
        return value.apply(target, args);
      };
    },
  });
}

/** PGlite with every statement counted, those inside `transaction` (plus its BEGIN and COMMIT) too. */
function countingPglite(db, counter) {
  return new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'query')
        return (...args) => {
          counter.count++;
          return value.apply(target, args);
        };
      if (property === 'transaction')
        return (work) => {
          counter.count += 2;
          return value.call(target, (tx) => work(counting(tx, /^query$/, counter)));
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Every statement any `pg` client sends while `during` runs: pool checkouts and transactions included. */
async function countingPg(counter, during) {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    counter.count++;
    return original.apply(this, args);
  };
  try {
    return await during();
  } finally {
    pg.Client.prototype.query = original;
  }
}

async function handleAll(receiver, deliveries) {
  for (const delivery of deliveries) {
    const answer = await receiver.handle(delivery, handlers);
    if (answer.status !== 200 || answer.body.duplicate)
      throw new Error(`handle answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

/**
 * Each store: `make(client?)` builds its DedupStore (over a counting client when given a
 * counter), `count(counter, run)` wraps the counting pass.
 */
async function storesToBench() {
  await loadClients();
  const stores = [];
  const skipped = [];
  const closers = [];
  stores.push({ name: 'memory', unit: '—', make: () => undefined });

  const redis = await startRedis().catch((error) => ({ missing: error.message }));
  if (redis.missing) skipped.push(['Redis', redis.missing]);
  else {
    const client = await redisClients.createClient({ url: redis.url }).connect();
    closers.push(() => client.quit(), redis.stop);
    stores.push({
      name: 'Redis (node-redis)',
      unit: 'round trips',
      make: (counter) =>
        redisDedupStore(counter ? counting(client, /^eval/i, counter) : client, { keyPrefix: `bench:${Date.now()}:` }),
    });
  }

  const cluster = await startRedisCluster().catch((error) => ({ missing: error.message }));
  if (cluster.missing) skipped.push(['Redis Cluster', cluster.missing]);
  else {
    const client = redisClients.createCluster({ rootNodes: cluster.nodes.map(({ url }) => ({ url })) });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.close(), cluster.stop);
    stores.push({
      name: 'Redis Cluster, 3 masters (node-redis)',
      unit: 'round trips',
      make: (counter) =>
        redisDedupStore(counter ? counting(client, /^eval/i, counter) : client, { keyPrefix: `bench:${Date.now()}:` }),
    });
  }

  const postgres = await startPostgres().catch((error) => ({ missing: error.message }));
  if (postgres.missing) skipped.push(['Postgres', postgres.missing]);
  else {
    const pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
    pool.on('error', () => {});
    closers.push(() => pool.end(), postgres.stop);
    for (const transactional of [false, true]) {
      const table = `bench_${transactional ? 'tx' : 'plain'}_${Date.now()}`;
      stores.push({
        name: `Postgres ${transactional ? 'transactional' : 'plain'} (pg Pool)`,
        unit: 'statements',
        make: () => postgresDedupStore(pool, { table, transactional }),
        count: countingPg,
      });
    }
  }

  const lite = await PGlite.create();
  closers.push(() => lite.close());
  for (const transactional of [false, true]) {
    const table = `bench_${transactional ? 'tx' : 'plain'}`;
    stores.push({
      name: `PGlite ${transactional ? 'transactional' : 'plain'} (in process)`,
      unit: 'statements',
      make: (counter) => postgresDedupStore(counter ? countingPglite(lite, counter) : lite, { table, transactional }),
    });
  }
  return { stores, skipped, close: () => Promise.allSettled(closers.reverse().map((close) => close())) };
}

/**
 * @returns {{ rows: { name, unit, perSecond, min, max, perDelivery }[], skipped: [string, string][] }}
 *   per store: median deliveries per second over rounds, the slowest and fastest round, and
 *   round trips or statements per delivery
 */
export async function storesSuite({ rounds, perRound }) {
  const { stores, skipped, close } = await storesToBench();
  try {
    const receivers = stores.map((store) => createReceiver({ token: TOKEN, dedup: store.make() }));
    // Warm-up: creates the tables, loads the scripts, fills the pools.
    for (const receiver of receivers) await handleAll(receiver, freshDeliveries(1024, 20));
    const perStore = stores.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < stores.length; k++) {
        const index = (k + round) % stores.length;
        const deliveries = freshDeliveries(1024, perRound);
        const start = process.hrtime.bigint();
        await handleAll(receivers[index], deliveries);
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        perStore[index].push(perRound / seconds);
      }
    }
    const rows = [];
    for (const [index, store] of stores.entries()) {
      let perDelivery;
      if (store.unit !== '—') {
        const counter = { count: 0 };
        const counted = createReceiver({ token: TOKEN, dedup: store.make(counter) });
        const sample = 50;
        // The first deliveries of a new store instance may create tables or load scripts: not counted.
        const run = async () => {
          await handleAll(counted, freshDeliveries(1024, 5));
          counter.count = 0;
          await handleAll(counted, freshDeliveries(1024, sample));
        };
        await (store.count ? store.count(counter, run) : run());
        perDelivery = counter.count / sample;
      }
      const rates = perStore[index];
      rows.push({
        name: store.name,
        unit: store.unit,
        perSecond: median(rates),
        min: Math.min(...rates),
        max: Math.max(...rates),
        perDelivery,
      });
    }
    return { rows, skipped };
  } finally {
    await close();
  }
}
