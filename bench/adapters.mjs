// `node bench/adapters.mjs [--before=<dir>] [--rounds=8] [--seconds=1] [--all-sizes]`: only the
// adapter rows of the timed bench (each adapter against a bare route in its framework, as
// `npm run bench` measures them), at 1 KiB unless `--all-sizes`. With `--before=<dir>`, a copy
// of an earlier build (its package.json, dist/ and bench/, node_modules linked) serves beside
// this one, and every round times the four routes in turn, so both builds meet the same machine:
// the table gives each build's adapter ÷ bare, medians of the per-round ratios with p25–p75.
// Run `npx tsup --silent` first: the servers import the built package.

import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { articleBody, signedDelivery } from './lib/deliveries.mjs';
import { median, quartiles } from './lib/measure.mjs';
import { forkPinned } from './lib/pinning.mjs';
import { HTTP_SIZES, load, sane } from './suites/http.mjs';

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option('rounds', '8'));
const seconds = Number(option('seconds', '1'));
const sizes = process.argv.includes('--all-sizes') ? HTTP_SIZES : HTTP_SIZES.slice(0, 1);
const here = fileURLToPath(new URL('.', import.meta.url));
const before = option('before', undefined);

/** Starts one build's servers; resolves to their ports by framework, and how to stop them. */
async function servers(benchDir) {
  const { child, pinned, release } = forkPinned(new URL(`file://${join(benchDir, 'suites/http-servers.mjs')}`), 0);
  const [{ ports }] = await once(child, 'message');
  return { ports, pinned, release };
}

const builds = [['this build', await servers(here)]];
if (before) builds.push(['before', await servers(resolve(before, 'bench'))]);
const spread = (values) => {
  const [p25, p75] = quartiles(values);
  return `${median(values).toFixed(3)}× (${p25.toFixed(2)}–${p75.toFixed(2)})`;
};
const lines = [
  `| framework | body | ${builds.map(([name]) => `${name}: adapter ÷ bare`).join(' | ')} |`,
  `|---|---|${builds.map(() => '---:').join('|')}|`,
];
try {
  for (const framework of Object.keys(builds[0][1].ports)) {
    if (!builds.every(([, build]) => framework in build.ports)) continue;
    for (const [label, size] of sizes) {
      const body = articleBody(size);
      // Per build: [bare, ours] URLs.
      const routes = builds.map(([, build]) =>
        ['bare', 'ours'].map((route) => `http://127.0.0.1:${build.ports[framework]}/${route}`),
      );
      const all = routes.flat();
      for (const url of all) await sane(url, signedDelivery(body));
      for (const url of all) await load(url, signedDelivery(body), 0.5);
      const rates = all.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < all.length; k++) {
          const index = (k + round) % all.length;
          const result = await load(all[index], signedDelivery(body), seconds);
          if (result.errors || result.timeouts || result.non2xx) throw new Error(`${all[index]}: errors`);
          rates[index].push(result.requests.average);
        }
      }
      const ratios = routes.map((_, b) => rates[2 * b + 1].map((ours, r) => ours / rates[2 * b][r]));
      lines.push(`| ${framework} | ${label} | ${ratios.map(spread).join(' | ')} |`);
      console.error(lines.at(-1));
    }
  }
} finally {
  for (const [, build] of builds) build.release();
}
console.log(`${rounds} rounds of ${seconds} s per route, autocannon with 8 connections.\n\n${lines.join('\n')}`);
