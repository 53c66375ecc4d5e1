// Child process of the ledger bench (bench/suites/ledger.mjs): one node:http server whose
// routes are the node adapter over receivers that differ only in their ledger, per engine:
// the engine's dedup store alone, and the same store with the engine's ledger on the same
// client (what a user passes both). The parent sends { redisUrl, postgresUrl } (each optional)
// and this process answers { port, routes }. Round trips are counted here: every statement a
// `pg` client sends, and every script call (EVALSHA or EVAL) on the node-redis client, the
// ledger's apart (statements naming its table; calls through its own counting view). On
// `{ read: true }` the ledgers are flushed first, so a cell's count holds its own rows'
// writes, then the counts since the last read are answered.

import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { TOKEN } from '../lib/deliveries.mjs';

const handlers = { 'article.sync': () => {} };
const stamp = Date.now();
const counts = { postgres: 0, postgresLedger: 0, redis: 0, redisLedger: 0 };
const ledgers = [];

/** The client with its script calls counted under `key` (every other method bound to the client itself). */
function countingRedis(client, key) {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!/^eval/i.test(String(property))) return value.bind(target);
      return (...args) => {
        counts.redis++;
        if (key) counts[key]++;
        return value.apply(target, args);
      };
    },
  });
}

/** [name, engine, receiver options] per route: per engine its dedup store alone, then with its ledger. */
async function arms({ redisUrl, postgresUrl }) {
  const routes = [];
  if (postgresUrl) {
    const { default: pg } = await import('pg');
    const { postgresDedupStore, postgresLedger } = await import('webhook-cms-receiver/postgres');
    const query = pg.Client.prototype.query;
    const ledgerTable = `bl_ledger_${stamp}`;
    pg.Client.prototype.query = function (...args) {
      counts.postgres++;
      if (String(args[0]?.text ?? args[0]).includes(ledgerTable)) counts.postgresLedger++;
      return query.apply(this, args);
    };
    // pg's default pool size, one pool per route, as in the concurrency bench.
    const pool = () => new pg.Pool({ connectionString: postgresUrl, max: 10 }).on('error', () => {});
    const off = pool();
    routes.push(['Postgres, no ledger', 'postgres', { dedup: postgresDedupStore(off, { table: `bl_off_${stamp}` }) }]);
    const on = pool();
    const ledger = postgresLedger(on, { table: ledgerTable });
    ledgers.push(ledger);
    routes.push([
      'Postgres, postgresLedger',
      'postgres',
      { dedup: postgresDedupStore(on, { table: `bl_on_${stamp}` }), ledger },
    ]);
  }
  if (redisUrl) {
    const { createClient } = await import('redis');
    const { redisDedupStore, redisLedger } = await import('webhook-cms-receiver/redis');
    const connected = await createClient({ url: redisUrl }).connect();
    const client = countingRedis(connected);
    const prefix = (name) => `bl:${stamp}:${name}:`;
    routes.push(['Redis, no ledger', 'redis', { dedup: redisDedupStore(client, { keyPrefix: prefix('off') }) }]);
    const ledger = redisLedger(countingRedis(connected, 'redisLedger'), { keyPrefix: prefix('ledger') });
    ledgers.push(ledger);
    routes.push([
      'Redis, redisLedger',
      'redis',
      { dedup: redisDedupStore(client, { keyPrefix: prefix('on') }), ledger },
    ]);
  }
  return routes;
}

process.on('message', async (message) => {
  if (message?.read) {
    await Promise.all(ledgers.map((ledger) => ledger.flush()));
    process.send({ counts: { ...counts } });
    for (const key of Object.keys(counts)) counts[key] = 0;
    return;
  }
  // The clients close when the parent kills this process.
  const routes = new Map();
  for (const [index, [name, engine, options]] of (await arms(message)).entries())
    routes.set(`/l${index}`, {
      name,
      engine,
      handle: webhookHandler(createReceiver({ token: TOKEN, ...options }), handlers),
    });
  const server = createServer((req, res) => {
    const route = routes.get(req.url);
    if (route) route.handle(req, res);
    else res.writeHead(404, { 'content-length': 0 }).end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send({
      port: server.address().port,
      routes: [...routes].map(([path, { name, engine }]) => ({ path, name, engine })),
    });
  });
});
process.on('SIGINT', () => process.exit(0));
