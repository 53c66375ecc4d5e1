// One server of the throughput record (bench/soak/throughput.mjs), forked pinned to one core:
// Express 5 with either our adapter (`ours`) or a hand-written route doing the same work
// (`hand`): Bearer check, 300 s window, HMAC-SHA256 over `<timestamp>.<raw body>` compared with
// timingSafeEqual, JSON parse, dedup on the delivery id (a Map, Redis `SET NX`, Postgres
// `INSERT … ON CONFLICT DO NOTHING`), then the handler. The handler counts its runs; the driver
// reads and resets the count over IPC, so "nothing lost" means every 200 ran its handler, with
// the CPU time the process spent meanwhile.

import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { TOKEN } from '../lib/deliveries.mjs';

const { contender, store, redisUrl, databaseUrl } = JSON.parse(process.env.THROUGHPUT_CONFIG);
let handled = 0;
const handle = () => {
  handled++;
};

async function openRedis() {
  const { Redis } = await import('ioredis');
  return new Redis(redisUrl);
}

async function openPool() {
  const { default: pg } = await import('pg');
  return new pg.Pool({ connectionString: databaseUrl, max: 10 });
}

/** Our receiver on the store of the run: the adapter is all the route has. */
async function ours() {
  let dedup = memoryDedupStore();
  if (store === 'redis') {
    const { redisDedupStore } = await import('webhook-cms-receiver/redis');
    dedup = redisDedupStore(await openRedis(), { keyPrefix: 'ours:' });
  } else if (store === 'postgres') {
    const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
    dedup = postgresDedupStore(await openPool(), { table: 'ours_dedup' });
  }
  const receiver = createReceiver({ token: TOKEN, dedup, logger: false });
  return webhookHandler(receiver, { 'article.sync': handle, 'article.trash': handle, test: handle });
}

/** `true` when the id is new (and now taken), `false` for a redelivery. */
async function handDedup() {
  if (store === 'redis') {
    const redis = await openRedis();
    return async (id) => (await redis.set(`hand:${id}`, '1', 'EX', 86_400, 'NX')) === 'OK';
  }
  if (store === 'postgres') {
    const pool = await openPool();
    await pool.query('CREATE TABLE IF NOT EXISTS hand_dedup (id text PRIMARY KEY, at timestamptz DEFAULT now())');
    const insert = 'INSERT INTO hand_dedup (id) VALUES ($1) ON CONFLICT DO NOTHING';
    return async (id) => (await pool.query(insert, [id])).rowCount === 1;
  }
  const seen = new Map();
  return (id) => {
    if (seen.has(id)) return false;
    seen.set(id, Date.now());
    return true;
  };
}

const EXPECTED_AUTH = Buffer.from(`Bearer ${TOKEN}`);
const sameBytes = (a, b) => a.length === b.length && timingSafeEqual(a, b);

/** What a careful developer writes by hand from the contract, in the route itself. */
async function hand() {
  const firstTime = await handDedup();
  const raw = express.raw({ type: () => true, limit: '10mb' });
  return [
    raw,
    async (req, res) => {
      if (!sameBytes(Buffer.from(req.get('authorization') ?? ''), EXPECTED_AUTH))
        return res.status(401).json({ error: 'Unauthorized' });
      const timestamp = req.get('x-service-timestamp') ?? '';
      if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300)
        return res.status(401).json({ error: 'Stale timestamp' });
      const signature = req.get('x-service-signature') ?? '';
      const mac = createHmac('sha256', TOKEN).update(`${timestamp}.`).update(req.body).digest();
      if (!signature.startsWith('sha256=') || !sameBytes(Buffer.from(signature.slice(7), 'hex'), mac))
        return res.status(403).json({ error: 'Invalid signature' });
      let event;
      try {
        event = JSON.parse(req.body.toString('utf8'));
      } catch {
        return res.status(400).json({ error: 'Malformed body' });
      }
      const id = req.get('x-service-delivery-id');
      if (!id) return res.status(400).json({ error: 'Missing delivery id' });
      try {
        if (!(await firstTime(id))) return res.json({ ok: true, duplicate: true });
        handle(event);
      } catch {
        return res.status(503).json({ error: 'Store unavailable' });
      }
      res.json({ ok: true });
    },
  ];
}

const app = express();
app.post('/webhook', ...[contender === 'ours' ? await ours() : await hand()].flat());
const server = app.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
server.keepAliveTimeout = 60_000;
// The driver's end is this server's end, even when the driver was killed.
process.on('disconnect', () => process.exit(0));
let cpuFrom = process.cpuUsage();
process.on('message', (message) => {
  if (message?.type !== 'count') return;
  // CPU time of this process since the last count: what the requests cost its core, whatever
  // else the machine ran meanwhile.
  const { user, system } = process.cpuUsage(cpuFrom);
  cpuFrom = process.cpuUsage();
  process.send({ type: 'count', handled, cpuMicros: user + system });
  handled = 0;
});
