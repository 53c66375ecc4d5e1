// Queue mode's answer latency: 1 KiB deliveries over HTTP on a kept-alive loopback connection,
// one at a time, to the node:http adapter of four receivers on one server in this process: an
// inline no-op handler and the memory store (no queue: the reference), the same with the Redis
// store (claim and complete: two round trips), queue mode with the memory store (the
// difference is BullMQ's `queue.add`, one Redis round trip), and queue mode with the Redis
// store (README's setup: claim, add, complete; the target, issue 37: p99 at most 1.5 ms). No
// worker runs meanwhile, so the answer path alone is timed; jobs pile up in a fresh queue per
// route and are dropped at the end.

import { once } from 'node:events';
import { Agent, createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { percentile, timedRequest } from '../lib/timed-request.mjs';

const SIZE = 1024;
const TARGET_P99_MS = 1.5;
/**
 * Requests per route before the rounds. With 20, queue mode's p99 was the JIT's: in one
 * process, rounds of 1,000 `handle()` calls had p99 3.8, 2.8, 2.0, 1.7 ms, then 0.6 to 1.5 ms
 * from the fifth thousand on (BullMQ, ioredis and the receiver still tiering up), while a
 * Redis PING stayed at 0.13 to 0.5 ms throughout. A server answers at steady state.
 */
const WARMUP = 5000;
const ms = (value) => value.toFixed(2);
const range = ([low, high]) => `${ms(low)}–${ms(high)}`;

/** BullMQ's connection options for `url`, as README's receiving process has them. */
export function connectionOf(url) {
  const { hostname, port } = new URL(url);
  // No offline queue, as README advises for the receiving process: Redis down is a 503 at once.
  return { host: hostname, port: Number(port), maxRetriesPerRequest: null, enableOfflineQueue: false };
}

/**
 * Per receiver: medians over rounds of each round's p50 and p99 (ms), their min–max, and their
 * median ratios to the inline route's in the same round.
 */
export async function latencyPart({
  redisUrl,
  Queue,
  Redis,
  bullmqQueue,
  redisDedupStore,
  rounds,
  requests,
  warmup = WARMUP,
}) {
  const stamp = Date.now();
  const queues = [new Queue(`bench-answer-${stamp}-a`, { connection: connectionOf(redisUrl) })];
  queues.push(new Queue(`bench-answer-${stamp}-b`, { connection: connectionOf(redisUrl) }));
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const handlers = { 'article.sync': () => {} };
  const routes = [
    {
      name: 'inline no-op handler, memory store (no queue)',
      path: '/inline',
      handle: webhookHandler(createReceiver({ token: TOKEN }), handlers),
      expected: '{"ok":true}',
    },
    {
      // Two Redis round trips (claim, complete) and no queue: what the Redis store alone adds.
      name: 'inline no-op handler, Redis store (no queue)',
      path: '/inline-redis',
      handle: webhookHandler(
        createReceiver({ token: TOKEN, dedup: redisDedupStore(redis, { keyPrefix: `bench:${stamp}:inline:` }) }),
        handlers,
      ),
      expected: '{"ok":true}',
    },
    {
      name: 'queue mode (BullMQ), memory store',
      path: '/queued',
      handle: webhookHandler(createReceiver({ token: TOKEN, queue: bullmqQueue(queues[0]) })),
      expected: '{"ok":true,"queued":true}',
    },
    {
      name: "queue mode (BullMQ), Redis store (README's setup)",
      path: '/queued-redis',
      handle: webhookHandler(
        createReceiver({
          token: TOKEN,
          queue: bullmqQueue(queues[1]),
          dedup: redisDedupStore(redis, { keyPrefix: `bench:${stamp}:` }),
        }),
      ),
      expected: '{"ok":true,"queued":true}',
    },
  ];
  const byPath = new Map(routes.map((route) => [route.path, route.handle]));
  const server = createServer((req, res) => {
    const handle = byPath.get(req.url);
    if (handle) handle(req, res);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const client = { port: server.address().port, agent };
  try {
    // Warm-up: compiles the paths, loads BullMQ's and the store's scripts, opens the socket.
    for (const route of routes)
      for (const delivery of freshDeliveries(SIZE, warmup))
        await timedRequest(client, delivery, { path: route.path, accepts: (text) => text === route.expected });
    const stats = routes.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < routes.length; k++) {
        const index = (k + round) % routes.length;
        const { path, expected } = routes[index];
        const times = [];
        for (const delivery of freshDeliveries(SIZE, requests))
          times.push(await timedRequest(client, delivery, { path, accepts: (text) => text === expected }));
        stats[index].push({ p50: percentile(times, 50), p99: percentile(times, 99) });
      }
    }
    return routes.map(({ name }, index) => {
      const of = (p) => stats[index].map((s) => s[p]);
      const ratio = (p) => stats[index].map((s, round) => s[p] / stats[0][round][p]);
      return {
        name,
        p50: median(of('p50')),
        p50Range: [Math.min(...of('p50')), Math.max(...of('p50'))],
        p99: median(of('p99')),
        p99Range: [Math.min(...of('p99')), Math.max(...of('p99'))],
        p50Ratio: median(ratio('p50')),
        p99Ratio: median(ratio('p99')),
      };
    });
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
    await Promise.allSettled(queues.map(async (queue) => queue.obliterate({ force: true }).then(() => queue.close())));
    await redis.quit();
  }
}

/** Issue 37's target: queue mode's answer p99 at 1 KiB with the Redis store. */
export function queueVerdicts(result) {
  const row = result.latency?.find((r) => r.name.startsWith('queue mode (BullMQ), Redis store'));
  if (!row) return [];
  return [
    {
      target: `queue mode (BullMQ), Redis store: answer p99 at 1 KiB ≤ ${TARGET_P99_MS} ms`,
      measured: `${ms(row.p99)} ms`,
      range: range(row.p99Range),
      pass: row.p99 <= TARGET_P99_MS,
    },
  ];
}
