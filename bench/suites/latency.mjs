// End-to-end latency of one 1 MiB delivery: from the first byte the client sends to the last
// byte of the answer, over a kept-alive loopback connection, one request at a time. The
// adapters hash the body while it streams in; the bare route buffers it and then hashes.
// The server runs in a child process pinned to its own core where taskset exists.

import { once } from 'node:events';
import { Agent } from 'node:http';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { percentile, timedRequest } from '../lib/timed-request.mjs';
import { forkPinned } from '../lib/pinning.mjs';

/** Every route answers a good delivery with ok. */
const OK = (text) => text.includes('"ok":true');

/** The first route is the baseline; `target` marks the ones the ≤ 0.90× target applies to. */
export const LATENCY_ROUTES = [
  { name: 'bare node:http route (buffer, then hash)', path: '/bare' },
  { name: 'node:http adapter', path: '/node', target: true },
  { name: 'Express 5 adapter', path: '/express', target: true },
  { name: 'reference: hand-written, hashing and decoding while streaming', path: '/by-hand' },
  { name: 'reference: read and discard (the transfer alone)', path: '/drain' },
];

/**
 * Interleaved rounds: each round sends `requests` deliveries to every route in turn (the order
 * rotates) and compares each route's p50, p90 and p99 with the bare route's in that round. With
 * `mbps`, the client paces the body like a link of that speed instead of writing it at once.
 * @returns per route: medians over rounds of its p50/p90/p99 (ms) and of its ratios to the bare route
 */
export async function latencySuite({ rounds, requests, mbps = 0, size = 1024 * 1024 }) {
  const { child, pinned, release } = forkPinned(new URL('./latency-server.mjs', import.meta.url), 0);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const [{ port }] = await once(child, 'message');
    const client = { port, agent, mbps };
    const body = articleBody(size);
    const timestamp = Math.floor(Date.now() / 1000);
    // Same body and signature under fresh delivery ids: the adapters' dedup sees every request as new.
    const fresh = () => signedDelivery(body, { timestamp });
    for (const { path } of LATENCY_ROUTES)
      for (let i = 0; i < 10; i++) await timedRequest(client, fresh(), { path, accepts: OK });
    const stats = LATENCY_ROUTES.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < LATENCY_ROUTES.length; k++) {
        const index = (k + round) % LATENCY_ROUTES.length;
        const times = [];
        for (let i = 0; i < requests; i++)
          times.push(await timedRequest(client, fresh(), { path: LATENCY_ROUTES[index].path, accepts: OK }));
        stats[index].push({ p50: percentile(times, 50), p90: percentile(times, 90), p99: percentile(times, 99) });
      }
    }
    const rows = LATENCY_ROUTES.map((route, index) => {
      const ratios = (p) => stats[index].map((s, round) => s[p] / stats[0][round][p]);
      return {
        ...route,
        p50: median(stats[index].map((s) => s.p50)),
        p90: median(stats[index].map((s) => s.p90)),
        p99: median(stats[index].map((s) => s.p99)),
        p50Ratio: median(ratios('p50')),
        p90Ratio: median(ratios('p90')),
        p99Ratio: median(ratios('p99')),
        p50Ratios: ratios('p50'),
        p90Ratios: ratios('p90'),
        p99Ratios: ratios('p99'),
      };
    });
    return { pinned, mbps, rows };
  } finally {
    agent.destroy();
    release();
  }
}
