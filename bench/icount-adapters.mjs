// `node bench/icount-adapters.mjs [--before=<dir>] [--frameworks=node:http,Fastify 5]
//   [--warmup=3000] [--window=1000] [--windows=3]`: instructions per request of each adapter
// and its bare route, counted by valgrind's callgrind in the server process, which the
// neighbours' load does not change. One server process per build and framework, under
// `node --predictable --single-threaded`; both routes warmed up first, then alternating
// windows of the same 1 KiB delivery on one kept-alive connection, dedup off. Each window is
// cut by a call to uv_loadavg (see suites/icount-server.mjs) and counted whole: the
// requests, the GC they cause, and one IPC message. `--before=<dir>`: a copy of an earlier
// build (package.json, dist/, bench/, node_modules linked) counted the same way, beside it.
// Prints per build and framework: instructions per request of each route, and bare ÷ adapter
// (medians over the window pairs). Run `npx tsup --silent` first.

import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { articleBody, signedDelivery } from './lib/deliveries.mjs';
import { median } from './lib/measure.mjs';
import { sane } from './suites/http.mjs';

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const warmup = Number(option('warmup', '3000'));
const window = Number(option('window', '1000'));
const windows = Number(option('windows', '3'));
const frameworks = option('frameworks', 'node:http,Express 5,Fastify 5,Koa 3').split(',');
const here = fileURLToPath(new URL('.', import.meta.url));
const builds = [['this build', here]];
const before = option('before', undefined);
if (before) builds.push(['before', resolve(before, 'bench')]);
const out = mkdtempSync(join(tmpdir(), 'icount-'));
const body = articleBody(1024);

// Under callgrind a few thousand requests can outlast the receiver's 5-minute timestamp window.
const SIGNED_FOR = 250;

/** `amount` requests, one at a time on one kept-alive connection, signed anew every 250. */
async function requests(url, amount) {
  for (let sent = 0; sent < amount; sent += SIGNED_FOR) {
    const { host, 'content-length': length, ...headers } = signedDelivery(body).headers;
    const part = Math.min(SIGNED_FOR, amount - sent);
    const result = await autocannon({ url, method: 'POST', headers, body, connections: 1, amount: part });
    if (result.errors || result.timeouts || result.non2xx) throw new Error(`${url}: ${result.non2xx} non-2xx`);
  }
}

/** Ir of every dump of one callgrind run, in order. */
function dumps(prefix) {
  const files = readdirSync(out)
    .filter((name) => name.startsWith(`${prefix}.`))
    .map((name) => [Number(name.split('.').pop()), name])
    .filter(([part]) => Number.isInteger(part))
    .sort((a, b) => a[0] - b[0]);
  return files.map(([, name]) => Number(/^totals: (\d+)/m.exec(readFileSync(join(out, name), 'utf8'))?.[1]));
}

async function count(buildName, benchDir, framework, index) {
  const prefix = `run${index}`;
  const child = fork(join(here, 'suites/icount-server.mjs'), [join(benchDir, 'suites/http-servers.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '--dump-before=uv_loadavg',
      `--callgrind-out-file=${join(out, prefix)}`,
      '--log-file=/dev/null',
      process.execPath,
      '--predictable',
      '--single-threaded',
      '--random-seed=42',
    ],
  });
  const [{ ports }] = await once(child, 'message');
  const mark = async (name) => {
    child.send({ mark: name });
    while ((await once(child, 'message'))[0]?.marked !== name);
  };
  const routes = ['bare', 'ours'].map((route) => `http://127.0.0.1:${ports[framework]}/${route}`);
  for (const url of routes) await sane(url, signedDelivery(body));
  for (const url of routes) await requests(url, warmup);
  await mark('warm');
  const order = [];
  for (let w = 0; w < windows; w++) {
    for (const k of w % 2 ? [1, 0] : [0, 1]) {
      await requests(routes[k], window);
      await mark(`${w}-${k}`);
      order.push(k);
    }
  }
  child.kill('SIGKILL');
  await once(child, 'exit');
  // Dump 1 is start-up and warm-up; then one per window, plus callgrind's last dump at exit.
  const irs = dumps(prefix).slice(1, 1 + order.length);
  const perRoute = [[], []];
  for (const [i, k] of order.entries()) perRoute[k].push(irs[i] / window);
  const ratios = perRoute[0].map((bare, i) => bare / perRoute[1][i]);
  return { buildName, framework, bare: perRoute[0], ours: perRoute[1], ratio: median(ratios), ratios };
}

const rows = [];
let index = 0;
for (const framework of frameworks) {
  // The builds side by side: a count does not depend on what else runs.
  const counted = await Promise.all(builds.map(([buildName, dir]) => count(buildName, dir, framework, index++)));
  for (const row of counted) {
    rows.push(row);
    const k = (values) => values.map((v) => Math.round(v).toLocaleString('en-US')).join(' / ');
    console.error(
      `${framework} (${row.buildName}): bare ${k(row.bare)}, adapter ${k(row.ours)} instructions per request; bare ÷ adapter ${row.ratio.toFixed(4)} (${row.ratios.map((r) => r.toFixed(4)).join(', ')})`,
    );
  }
}
console.log(
  [
    '| framework | build | bare route (instr./request) | adapter (instr./request) | bare ÷ adapter |',
    '|---|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.framework} | ${r.buildName} | ${Math.round(median(r.bare)).toLocaleString('en-US')} | ${Math.round(median(r.ours)).toLocaleString('en-US')} | ${r.ratio.toFixed(4)} |`,
    ),
  ].join('\n'),
);
