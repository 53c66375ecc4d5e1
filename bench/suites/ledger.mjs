// What the delivery ledger costs over HTTP (issue 48 item 6): the node adapter on loopback
// (ledger-server.mjs, pinned to one core) and the closed-loop load generator of the
// concurrency bench in this process, 64 connections, every request a fresh 1 KiB delivery (it
// claims, completes and is recorded). Per engine, its dedup store alone against the same store
// with the engine's ledger on the same client (postgresDedupStore + postgresLedger on one `pg`
// Pool; redisDedupStore + redisLedger on one node-redis client), all routes interleaved in
// each round, the order rotated between rounds. Round trips per delivery are counted in the
// server process for each cell (pg statements, Redis script calls), the ledger flushed before
// each reading so a cell's rows are written inside it. Postgres and Redis are started for the
// run (or named by DATABASE_URL and REDIS_URL).
//
// `node bench/suites/ledger.mjs [--quick]` runs it alone (after `npx tsup`); it is also a step
// of `npm run bench`.

import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freshDeliveries } from '../lib/deliveries.mjs';
import { closedLoop, requestBytes } from '../lib/load-client.mjs';
import { median } from '../lib/measure.mjs';
import { forkPinned } from '../lib/pinning.mjs';
import { treeCpuMs } from '../lib/process-cpu.mjs';
import { formatRatio as x, table } from '../lib/report.mjs';
import { startPostgres, startRedis } from '../lib/services.mjs';
import { percentile } from '../lib/timed-request.mjs';

export const LEDGER_CONCURRENCY = 64;
const OK = '{"ok":true}';
const accepts = (status, text) => status === 200 && text === OK;

async function startServices() {
  const skipped = [];
  const stops = [];
  const take = async (name, start) => {
    const service = await start().catch((error) => ({ missing: error.message }));
    if (service.missing) skipped.push([name, service.missing]);
    else stops.push(service.stop);
    return service.missing ? undefined : service;
  };
  const postgres = await take('Postgres', startPostgres);
  const redis = await take('Redis', startRedis);
  return {
    services: { postgresUrl: postgres?.url, redisUrl: redis?.url },
    pids: { postgres: postgres?.pids ?? [], redis: redis?.pids ?? [] },
    skipped,
    stop: () => Promise.allSettled(stops.map((stop) => stop())),
  };
}

/** The server's round-trip counts since the last reading, its ledgers flushed first. */
async function readCounts(child) {
  child.send({ read: true });
  for (;;) {
    const [message] = await once(child, 'message');
    if (message?.counts) return message.counts;
  }
}

/** `count` fresh deliveries to one route: rate, latencies, CPU µs per delivery and round trips per delivery. */
async function cell({ child, port, pids }, route, count) {
  const requests = freshDeliveries(1024, count).map((delivery) => requestBytes(route.path, delivery));
  await readCounts(child);
  const before = [treeCpuMs([child.pid]), treeCpuMs(pids[route.engine])];
  const { perSecond, latencies } = await closedLoop({ port, concurrency: LEDGER_CONCURRENCY, requests, accepts });
  const after = [treeCpuMs([child.pid]), treeCpuMs(pids[route.engine])];
  const counts = await readCounts(child);
  const [server, store] = after.map((ms, i) => (ms === undefined ? undefined : ((ms - before[i]) * 1000) / count));
  return {
    perSecond,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    server,
    store,
    roundTrips: counts[route.engine] / count,
    ledgerTrips: counts[`${route.engine}Ledger`] / count,
  };
}

/**
 * @param {{ rounds: number, perCell: number }} options `perCell` requests per route and round
 * @returns {Promise<{ rows: object[], skipped: [string, string][], rounds: number, perCell: number, pinned: boolean }>}
 *   per route: median rate, its range, the median per-round ratio to its engine's route without a ledger,
 *   p50 and p99, CPU per delivery and round trips per delivery (medians over rounds)
 */
export async function ledgerSuite({ rounds, perCell }) {
  const { services, pids, skipped, stop } = await startServices();
  const { child, pinned, release } = forkPinned(new URL('./ledger-server.mjs', import.meta.url), 0);
  try {
    child.send(services);
    const [{ port, routes }] = await once(child, 'message');
    const target = { child, port, pids };
    // Warm-up: compiles every path, creates the tables, loads the scripts, fills the pools.
    for (const route of routes) await cell(target, route, Math.max(200, perCell / 4));
    const runs = routes.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < routes.length; k++) {
        const index = (k + round) % routes.length;
        runs[index].push(await cell(target, routes[index], perCell));
      }
    }
    const rows = routes.map((route, index) => {
      const of = (key) => runs[index].map((run) => run[key]);
      // Each engine's route without a ledger comes just before its ledger's route.
      const base = routes.findIndex((other) => other.engine === route.engine);
      const ratios = runs[index].map((run, r) => run.perSecond / runs[base][r].perSecond);
      const cpu = (key) => (of(key).includes(undefined) ? undefined : median(of(key)));
      return {
        name: route.name,
        perSecond: median(of('perSecond')),
        range: [Math.min(...of('perSecond')), Math.max(...of('perSecond'))],
        ratio: median(ratios),
        ratios,
        p50: median(of('p50')),
        p99: median(of('p99')),
        server: cpu('server'),
        store: cpu('store'),
        roundTrips: median(of('roundTrips')),
        roundTripsRange: [Math.min(...of('roundTrips')), Math.max(...of('roundTrips'))],
        ledgerTrips: median(of('ledgerTrips')),
        ledgerTripsRange: [Math.min(...of('ledgerTrips')), Math.max(...of('ledgerTrips'))],
      };
    });
    return { rows, skipped, rounds, perCell, pinned };
  } finally {
    release();
    await stop();
  }
}

const rate = (value) => Math.round(value).toLocaleString('en-US');
const us = (value) => (value === undefined ? '—' : Math.round(value).toLocaleString('en-US'));
const trips = ([low, high], value) =>
  low === high ? value.toFixed(3) : `${value.toFixed(3)} (${low.toFixed(3)}–${high.toFixed(3)})`;

/** The suite's table, as markdown, or why an engine was not measured. */
export function ledgerReport(result) {
  const notMeasured = result.skipped.map(([name, why]) => ` Not measured: ${name} (${why}).`).join('');
  return (
    `The node adapter on loopback, ${result.pinned ? 'server and load generator pinned to different cores' : 'not pinned'}; the closed-loop load generator of the concurrency bench with ${LEDGER_CONCURRENCY} connections; every request a fresh 1 KiB delivery; ${result.rounds} interleaved rounds of ${result.perCell.toLocaleString('en-US')} requests per route. Ratios are medians of per-round ratios to the same engine's route without a ledger; rates, p50, p99 and CPU µs per delivery (server process · the engine's server processes, from /proc at 10 ms resolution) are medians over rounds. Round trips per delivery: statements sent by \`pg\` (Postgres) or script calls on the node-redis client (Redis), dedup's and the ledger's together, and the ledger's alone (statements naming its table; calls through its client), the ledger flushed at the end of each cell so its writes are counted in it; medians over rounds (range). The ledger writes its rows in batches (every 100 ms or 500 rows), so its share is one write per batch.${notMeasured}\n\n` +
    table(
      [
        'route',
        'deliveries/s (median)',
        'rounds min–max',
        '÷ no ledger',
        'p50 (ms)',
        'p99 (ms)',
        'CPU µs per delivery: server · store',
        'round trips per delivery',
        "of which the ledger's",
      ],
      result.rows.map((r) => [
        r.name,
        rate(r.perSecond),
        `${rate(r.range[0])}–${rate(r.range[1])}`,
        x(r.ratio),
        r.p50.toFixed(2),
        r.p99.toFixed(2),
        `${us(r.server)} · ${us(r.store)}`,
        trips(r.roundTripsRange, r.roundTrips),
        trips(r.ledgerTripsRange, r.ledgerTrips),
      ]),
    )
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { buildIfStale } = await import('../lib/build.mjs');
  buildIfStale();
  const quick = process.argv.includes('--quick');
  const result = await ledgerSuite(quick ? { rounds: 1, perCell: 200 } : { rounds: 7, perCell: 3_000 });
  console.log(ledgerReport(result));
  console.log(`ratios per round: ${result.rows.map((r) => `${r.name}: ${r.ratios.map(x).join(' ')}`).join('; ')}`);
}
