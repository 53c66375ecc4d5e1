// Child process of the concurrency bench: one node:http server whose routes are the node
// adapter over receivers that differ only in their dedup store. The parent sends the servers
// it started ({ redisUrl, clusterNodes, postgresUrl }, each optional); this process answers
// { port, routes } and serves until killed. Every handler is a no-op, so a route's time is the
// adapter, the receiver and its store.

import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { TOKEN } from '../lib/deliveries.mjs';

const handlers = { 'article.sync': () => {} };
const stamp = Date.now();
const prefix = (name) => `bench:${stamp}:${name}:`;

/** name → DedupStore (or false): the dedup-off baseline first, then each store whose server exists. */
async function storesOf({ redisUrl, clusterNodes, postgresUrl }) {
  const stores = [
    ['dedup off', false],
    ['memory', undefined],
  ];
  if (redisUrl || clusterNodes) {
    const { redisDedupStore } = await import('webhook-cms-receiver/redis');
    if (redisUrl) {
      const { createClient } = await import('redis');
      const { Redis } = await import('ioredis');
      const nodeRedis = await createClient({ url: redisUrl }).connect();
      // ioredis sends each command on its own unless told to batch a tick's commands.
      const ioredis = new Redis(redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
      stores.push(['Redis (node-redis)', redisDedupStore(nodeRedis, { keyPrefix: prefix('node') })]);
      stores.push(['Redis (ioredis, auto-pipelining)', redisDedupStore(ioredis, { keyPrefix: prefix('io') })]);
    }
    if (clusterNodes) {
      const { createCluster } = await import('redis');
      const cluster = createCluster({ rootNodes: clusterNodes.map(({ url }) => ({ url })) });
      cluster.on('error', () => {});
      await cluster.connect();
      stores.push(['Redis Cluster, 3 masters (node-redis)', redisDedupStore(cluster, { keyPrefix: prefix('cl') })]);
    }
  }
  if (postgresUrl) {
    const { default: pg } = await import('pg');
    const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
    // pg's default pool size: what a receiver gets unless it sizes its pool.
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 10 });
    pool.on('error', () => {});
    stores.push(['Postgres plain (pg Pool of 10)', postgresDedupStore(pool, { table: `bench_conc_${stamp}` })]);
    stores.push([
      'Postgres plain, preparedStatements (pg Pool of 10)',
      postgresDedupStore(pool, { table: `bench_prep_${stamp}`, preparedStatements: true }),
    ]);
  }
  return stores;
}

process.once('message', async (services) => {
  // The clients close when the parent kills this process.
  const stores = await storesOf(services);
  const routes = new Map();
  for (const [index, [name, dedup]] of stores.entries())
    routes.set(`/s${index}`, { name, handle: webhookHandler(createReceiver({ token: TOKEN, dedup }), handlers) });
  const server = createServer((req, res) => {
    const route = routes.get(req.url);
    if (route) route.handle(req, res);
    else res.writeHead(404, { 'content-length': 0 }).end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send({
      port: server.address().port,
      routes: [...routes].map(([path, { name }]) => ({ path, name })),
    });
  });
});
process.on('SIGINT', () => process.exit(0));
