// Requests per second of each adapter against a bare route in the same framework, on
// loopback. The servers run in a child process pinned to one core, the load generator (this
// process) to the other, where taskset exists.

import { once } from 'node:events';
import autocannon from 'autocannon';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { forkPinned } from '../lib/pinning.mjs';
import { treeCpuMs } from '../lib/process-cpu.mjs';

export const HTTP_SIZES = [
  ['1 KiB', 1024, { ascii: false }],
  ['256 KiB', 256 * 1024, { ascii: false }],
  ['256 KiB ASCII', 256 * 1024, { ascii: true }],
];

export function load(url, delivery, seconds) {
  // autocannon sets Content-Length itself; a second copy makes servers drop the connection.
  const { host, 'content-length': length, ...headers } = delivery.headers;
  return autocannon({ url, method: 'POST', headers, body: delivery.body, connections: 8, duration: seconds });
}

/** Refuses to time a route that does not accept the delivery with 200 {"ok":true}. */
export async function sane(url, delivery) {
  const { host, ...headers } = delivery.headers;
  const response = await fetch(url, { method: 'POST', headers, body: delivery.body });
  const text = await response.text();
  if (response.status !== 200 || JSON.parse(text).ok !== true)
    throw new Error(`${url} answered ${response.status} ${text}`);
}

/**
 * Every framework's adapter against its bare route at each size, and at 1 KiB also behind a
 * host AsyncLocalStorage (/ours-als), all routes of a cell in interleaved rounds.
 * @param {{ rounds: number, seconds: number, warmup?: number, labels?: string[] }} options `warmup`
 *   seconds per route, untimed; `labels` the bodies of HTTP_SIZES to run (all by default)
 */
export async function httpSuite({ rounds, seconds, warmup = 0.5, labels }) {
  const { child, pinned, release } = forkPinned(new URL('./http-servers.mjs', import.meta.url), 0);
  try {
    const [{ ports }] = await once(child, 'message');
    const rows = [];
    for (const [framework, port] of Object.entries(ports)) {
      for (const [label, size, text] of HTTP_SIZES) {
        if (labels && !labels.includes(label)) continue;
        // The host context is an adapter cost independent of the body: 1 KiB shows it most.
        const names = size === 1024 ? ['bare', 'ours', 'ours-als'] : ['bare', 'ours'];
        const routes = names.map((route) => `http://127.0.0.1:${port}/${route}`);
        const body = articleBody(size, text);
        for (const url of routes) await sane(url, signedDelivery(body));
        // Warm every route up before anything counts (a smoke run may skip it: warmup 0).
        if (warmup > 0) for (const url of routes) await load(url, signedDelivery(body), warmup);
        const perRound = routes.map(() => []);
        // The server's CPU per request beside its rate, for the host-context rows (the cells
        // with /ours-als): other work on a shared machine moves a round's rate far more than
        // the server's own CPU per request. Without /proc the readings are NaN.
        const cpuPerRound = routes.map(() => []);
        const hostCell = names.includes('ours-als');
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < routes.length; k++) {
            const index = (k + round) % routes.length;
            const cpuBefore = hostCell ? treeCpuMs([child.pid]) : 0;
            const result = await load(routes[index], signedDelivery(body), seconds);
            if (hostCell)
              cpuPerRound[index].push(((treeCpuMs([child.pid]) - cpuBefore) * 1000) / result.requests.total);
            if (result.errors || result.timeouts || result.non2xx)
              throw new Error(
                `${routes[index]}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
              );
            perRound[index].push(result.requests.average);
          }
        }
        const ratios = perRound[1].map((ours, round) => ours / perRound[0][round]);
        const row = {
          framework,
          label,
          bare: median(perRound[0]),
          ours: median(perRound[1]),
          ratio: median(ratios),
          ratios,
        };
        if (perRound[2]) {
          const hostRatios = perRound[2].map((withHost, round) => withHost / perRound[1][round]);
          row.host = {
            perSecond: median(perRound[2]),
            ratio: median(hostRatios),
            ratios: hostRatios,
            ofBare: median(perRound[2].map((withHost, round) => withHost / perRound[0][round])),
          };
          // A NaN reading (no /proc) leaves the column out.
          const cpuRatios = cpuPerRound[2].map((inHost, round) => cpuPerRound[1][round] / inHost);
          if (cpuRatios.every(Number.isFinite)) row.host.cpu = { ratio: median(cpuRatios), ratios: cpuRatios };
        }
        rows.push(row);
      }
    }
    return { rows, pinned };
  } finally {
    release();
  }
}
