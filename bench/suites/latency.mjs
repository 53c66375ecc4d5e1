// End-to-end latency of one 1 MiB delivery: from the first byte the client sends to the last
// byte of the answer, over a kept-alive loopback connection, one request at a time. The
// adapters hash the body while it streams in; the bare route buffers it and then hashes.
// The server runs in a child process pinned to its own core where taskset exists.

import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { forkPinned } from '../lib/pinning.mjs';

/** The first route is the baseline; `target` marks the ones the ≤ 0.90× target applies to. */
export const LATENCY_ROUTES = [
  { name: 'bare node:http route (buffer, then hash)', path: '/bare' },
  { name: 'node:http adapter', path: '/node', target: true },
  { name: 'Express 5 adapter', path: '/express', target: true },
  { name: 'reference: hand-written, hashing and decoding while streaming', path: '/by-hand' },
  { name: 'reference: read and discard (the transfer alone)', path: '/drain' },
];

const CHUNK = 64 * 1024;

/** Writes the body whole, or in 64 KiB chunks at `mbps` megabits per second, as a link would deliver it. */
async function writeBody(req, body, mbps) {
  if (!mbps) return void req.end(body);
  const start = process.hrtime.bigint();
  const nsPerChunk = (CHUNK * 8 * 1000) / mbps;
  for (let offset = 0, k = 1; offset < body.length; offset += CHUNK, k++) {
    req.write(body.subarray(offset, offset + CHUNK));
    // This process has a core of its own, so waiting by polling costs the server nothing.
    while (Number(process.hrtime.bigint() - start) < k * nsPerChunk) await new Promise(setImmediate);
  }
  req.end();
}

/** Milliseconds from the start of the request to the end of its answer. */
function timeOne({ port, agent, mbps }, delivery, path) {
  const { host, ...headers } = delivery.headers;
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (res.statusCode !== 200 || !text.includes('"ok":true'))
          reject(new Error(`${path}: ${res.statusCode} ${text}`));
        else resolve(ms);
      });
    });
    req.on('error', reject);
    writeBody(req, delivery.body, mbps).catch(reject);
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

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
    for (const { path } of LATENCY_ROUTES) for (let i = 0; i < 10; i++) await timeOne(client, fresh(), path);
    const stats = LATENCY_ROUTES.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < LATENCY_ROUTES.length; k++) {
        const index = (k + round) % LATENCY_ROUTES.length;
        const times = [];
        for (let i = 0; i < requests; i++) times.push(await timeOne(client, fresh(), LATENCY_ROUTES[index].path));
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
