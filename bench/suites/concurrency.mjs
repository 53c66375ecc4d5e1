// handle() over HTTP under concurrency, with each shared store (issue 37 item 4): the node
// adapter on loopback (concurrency-server.mjs, pinned to one core) and a closed-loop load
// generator in this process (pinned to the other) with 1, 16 and 64 connections, every
// request a fresh 1 KiB delivery, so each one claims and completes. Each store's route is
// compared with the same adapter with dedup off, measured in the same round: deliveries per
// second, p99, and the CPU per delivery of the server, the store's servers and the load
// generator (which is what bounds throughput when all three share the machine). Redis, the
// Redis Cluster and Postgres are started for the run (or named by REDIS_URL,
// REDIS_CLUSTER_NODES, DATABASE_URL) and run on whichever core is free.

import { once } from 'node:events';
import { freshDeliveries } from '../lib/deliveries.mjs';
import { closedLoop, requestBytes } from '../lib/load-client.mjs';
import { median } from '../lib/measure.mjs';
import { forkPinned } from '../lib/pinning.mjs';
import { formatRatio as x, table } from '../lib/report.mjs';
import { startPostgres, startRedis, startRedisCluster } from '../lib/services.mjs';
import { treeCpuMs } from '../lib/process-cpu.mjs';
import { percentile } from '../lib/timed-request.mjs';

/** Requests in flight at once, per row. */
export const CONCURRENCY = [1, 16, 64];
const OK = '{"ok":true}';
const accepts = (status, text) => status === 200 && text === OK;

/** Targets at 64 concurrent requests: a store's throughput ÷ dedup off. */
const TARGETS = [
  [/^Redis \(/, 0.6],
  [/^Redis Cluster/, 0.6],
  // The default store; `preparedStatements: true` is an opt-in (it needs real sessions): no target.
  [/^Postgres plain \(/, 0.4],
];

async function startServices(wanted) {
  const skipped = [];
  const stops = [];
  const take = async (name, start) => {
    if (!wanted.includes(name)) return undefined;
    const service = await start().catch((error) => ({ missing: error.message }));
    if (service.missing) skipped.push([name, service.missing]);
    else stops.push(service.stop);
    return service.missing ? undefined : service;
  };
  const redis = await take('Redis', startRedis);
  const cluster = await take('Redis Cluster', startRedisCluster);
  const postgres = await take('Postgres', startPostgres);
  return {
    services: { redisUrl: redis?.url, clusterNodes: cluster?.nodes, postgresUrl: postgres?.url },
    pids: [redis, cluster, postgres].flatMap((service) => service?.pids ?? []),
    skipped,
    stop: () => Promise.allSettled(stops.map((stop) => stop())),
  };
}

const clientMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * `count` fresh deliveries to `path`: the closed loop's rate and latencies, and the CPU µs per
 * delivery of the server process, of the store's servers and of this load generator.
 */
async function cell({ port, serverPid, storePids }, path, concurrency, count) {
  const requests = freshDeliveries(1024, count).map((delivery) => requestBytes(path, delivery));
  const before = [treeCpuMs([serverPid]), treeCpuMs(storePids), clientMs()];
  const result = await closedLoop({ port, concurrency, requests, accepts });
  const after = [treeCpuMs([serverPid]), treeCpuMs(storePids), clientMs()];
  const [server, store, client] = after.map((ms, i) =>
    ms === undefined ? undefined : ((ms - before[i]) * 1000) / count,
  );
  return { ...result, cpu: { server, store, client } };
}

const SERVICES = ['Redis', 'Redis Cluster', 'Postgres'];

/**
 * `services` and `only` narrow a run to some stores (one store's work, without the others'
 * servers idling beside it): which servers to start, and which routes to measure besides
 * dedup off, the baseline, which always runs.
 * @param {{ rounds: number, perCell: number, services?: string[], only?: RegExp }} options `perCell` requests per store, concurrency and round
 * @returns {Promise<{ rows: object[], skipped: [string, string][], rounds: number, perCell: number, pinned: boolean }>}
 */
export async function concurrencySuite({ rounds, perCell, services: wanted = SERVICES, only }) {
  const { services, pids, skipped, stop } = await startServices(wanted);
  const { child, pinned, release } = forkPinned(new URL('./concurrency-server.mjs', import.meta.url), 0);
  try {
    child.send(services);
    const [{ port, routes: all }] = await once(child, 'message');
    const routes = all.filter(({ name }, index) => index === 0 || !only || only.test(name));
    const target = { port, serverPid: child.pid, storePids: pids };
    // Warm-up: compiles every path, creates the table, loads the scripts, fills the pools.
    for (const { path } of routes) await cell(target, path, 16, Math.max(200, perCell / 4));
    const rows = [];
    for (const concurrency of CONCURRENCY) {
      const runs = routes.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < routes.length; k++) {
          const index = (k + round) % routes.length;
          const { perSecond, latencies, cpu } = await cell(target, routes[index].path, concurrency, perCell);
          runs[index].push({ perSecond, p50: percentile(latencies, 50), p99: percentile(latencies, 99), ...cpu });
        }
      }
      for (const [index, { name }] of routes.entries()) {
        const of = (key) => runs[index].map((run) => run[key]);
        const ratios = (key) => runs[index].map((run, round) => run[key] / runs[0][round][key]);
        rows.push({
          name,
          concurrency,
          perSecond: median(of('perSecond')),
          range: [Math.min(...of('perSecond')), Math.max(...of('perSecond'))],
          ratio: median(ratios('perSecond')),
          ratios: ratios('perSecond'),
          p50: median(of('p50')),
          p99: median(of('p99')),
          p99Ratio: median(ratios('p99')),
          cpu: Object.fromEntries(
            ['server', 'store', 'client'].map((part) => [
              part,
              of(part).includes(undefined) ? undefined : median(of(part)),
            ]),
          ),
        });
      }
    }
    return { rows, skipped, rounds, perCell, pinned };
  } finally {
    release();
    await stop();
  }
}

/** PASS/FAIL at 64 concurrent requests for every store with a target. */
export function concurrencyVerdicts(result) {
  const verdicts = [];
  for (const row of result.rows) {
    const target = TARGETS.find(([pattern]) => pattern.test(row.name));
    if (!target || row.concurrency !== 64) continue;
    verdicts.push({
      target: `${row.name}, 64 concurrent: ≥ ${target[1]}× of dedup-off throughput`,
      measured: x(row.ratio),
      range: `${x(Math.min(...row.ratios))}–${x(Math.max(...row.ratios))}`,
      pass: row.ratio >= target[1],
    });
  }
  return verdicts;
}

const rate = (value) => Math.round(value).toLocaleString('en-US');
const us = (value) => (value === undefined ? '—' : Math.round(value).toLocaleString('en-US'));
const cpuCell = ({ server, store, client }) => `${us(server)} · ${us(store)} · ${us(client)}`;

/** The suite's table, as markdown (its verdicts join the Targets table), or why a store was not measured. */
export function concurrencyReport(result) {
  const rows = result.rows.map((r) => [
    r.name,
    String(r.concurrency),
    rate(r.perSecond),
    `${rate(r.range[0])}–${rate(r.range[1])}`,
    x(r.ratio),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    x(r.p99Ratio),
    cpuCell(r.cpu),
  ]);
  const notMeasured = result.skipped.map(([name, why]) => ` Not measured: ${name} (${why}).`).join('');
  return (
    `The node adapter on loopback, ${result.pinned ? 'server and load generator pinned to different cores' : 'not pinned'}; a closed-loop load generator on raw keep-alive sockets with 1, 16 or 64 connections; every request a fresh 1 KiB delivery (it claims and completes); ${result.rounds} interleaved rounds of ${result.perCell.toLocaleString('en-US')} requests per store and concurrency. Ratios are medians of per-round ratios to dedup off in the same round; p50 and p99 are medians over rounds. CPU per delivery (medians over rounds, from /proc at 10 ms resolution): the server process (adapter, receiver, store client), the store's servers (redis-server processes, or the postmaster and its backends; all of them, idle ones included) and the load generator; the machine's cores are shared by all three, so their sum bounds the throughput.${notMeasured}\n\n` +
    table(
      [
        'store',
        'concurrent',
        'deliveries/s (median)',
        'rounds min–max',
        '÷ dedup off',
        'p50 (ms)',
        'p99 (ms)',
        'p99 ÷ dedup off',
        'CPU µs per delivery: server · store · load',
      ],
      rows,
    )
  );
}
