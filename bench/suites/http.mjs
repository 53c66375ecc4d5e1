// Requests per second of each adapter against a bare route in the same framework, on
// loopback. The servers run in a child process pinned to one core, the load generator (this
// process) to the other, where taskset exists.

import { once } from 'node:events';
import autocannon from 'autocannon';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { forkPinned } from '../lib/pinning.mjs';

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

export async function httpSuite({ rounds, seconds }) {
  const { child, pinned, release } = forkPinned(new URL('./http-servers.mjs', import.meta.url), 0);
  try {
    const [{ ports }] = await once(child, 'message');
    const rows = [];
    for (const [framework, port] of Object.entries(ports)) {
      for (const [label, size, text] of HTTP_SIZES) {
        const routes = ['bare', 'ours'].map((route) => `http://127.0.0.1:${port}/${route}`);
        const body = articleBody(size, text);
        for (const url of routes) await sane(url, signedDelivery(body));
        // Warm both routes up before anything counts.
        for (const url of routes) await load(url, signedDelivery(body), 0.5);
        const perRound = [[], []];
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < 2; k++) {
            const index = (k + round) % 2;
            const result = await load(routes[index], signedDelivery(body), seconds);
            if (result.errors || result.timeouts || result.non2xx)
              throw new Error(
                `${routes[index]}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
              );
            perRound[index].push(result.requests.average);
          }
        }
        const ratios = perRound[1].map((ours, round) => ours / perRound[0][round]);
        rows.push({
          framework,
          label,
          bare: median(perRound[0]),
          ours: median(perRound[1]),
          ratio: median(ratios),
          ratios,
        });
      }
    }
    return { rows, pinned };
  } finally {
    release();
  }
}
