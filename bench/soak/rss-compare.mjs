// `node bench/soak/rss-compare.mjs [minutes]`: is the soak's RSS growth outside the V8 heap
// the receiver's? Four Express servers (bench/soak/throughput-server.mjs, memory store) get the
// same deliveries, each sent to all four: our adapter and the hand-written route, each with
// glibc's default malloc arenas and with MALLOC_ARENA_MAX=2. Bodies as the soak's mix: nine in
// ten 2 KiB, one in ten 64 KiB, 256 KiB or 1 MiB. Prints RSS, heap and external memory after a
// full GC, and their slopes over the second half in MiB/h. See BENCHMARKS.md, "Soak under chaos".

import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../lib/build.mjs';
import { articleBody, signedDelivery } from '../lib/deliveries.mjs';

const minutes = Number(process.argv[2] ?? 10);
const VARIANTS = [
  { name: 'ours', contender: 'ours', env: {} },
  { name: 'hand-written', contender: 'hand', env: {} },
  { name: 'ours, MALLOC_ARENA_MAX=2', contender: 'ours', env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'hand-written, MALLOC_ARENA_MAX=2', contender: 'hand', env: { MALLOC_ARENA_MAX: '2' } },
];
const MIB = 2 ** 20;

buildIfStale();
const server = fileURLToPath(new URL('./throughput-server.mjs', import.meta.url));
const probe = fileURLToPath(new URL('./rss-probe.mjs', import.meta.url));
for (const variant of VARIANTS) {
  variant.samples = [];
  variant.child = fork(server, [], {
    execArgv: ['--expose-gc', '--import', probe],
    env: {
      ...process.env,
      ...variant.env,
      THROUGHPUT_CONFIG: JSON.stringify({ contender: variant.contender, store: 'memory' }),
    },
  });
  const [ready] = await once(variant.child, 'message');
  variant.port = ready.port;
  variant.child.on('message', (message) => {
    if (message?.type === 'mem') variant.samples.push(message);
  });
}

const TEMPLATE_ID = '00000000-0000-4000-8000-000000000000';
const small = articleBody(2048, { id: TEMPLATE_ID });
const large = [64, 256, 1024].map((kib) => articleBody(kib * 1024, { id: TEMPLATE_ID }));
const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const post = (port, delivery) =>
  new Promise((resolve) => {
    const { host, ...headers } = delivery.headers;
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhook', headers, agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', resolve);
    req.end(delivery.body);
  });

const start = Date.now();
let sent = 0;
while (Date.now() - start < minutes * 60_000) {
  const template = sent % 10 === 9 ? large[sent % 3] : small;
  const id = randomUUID();
  const delivery = signedDelivery(template.replace(TEMPLATE_ID, id), { deliveryId: id });
  await Promise.all(VARIANTS.map((variant) => post(variant.port, delivery)));
  sent++;
  await new Promise((resolve) => setTimeout(resolve, 40));
}

/** Least-squares slope over the second half, in MiB per hour. */
function slope(samples, key) {
  const half = samples.filter((s) => s.t >= start + (minutes * 60_000) / 2);
  const mt = half.reduce((a, s) => a + s.t, 0) / half.length;
  const mv = half.reduce((a, s) => a + s[key], 0) / half.length;
  let num = 0;
  let den = 0;
  for (const s of half) {
    num += (s.t - mt) * (s[key] - mv);
    den += (s.t - mt) ** 2;
  }
  return ((num / den) * 3_600_000) / MIB;
}

console.log(`${sent} deliveries to each server over ${minutes} min`);
console.log('| server | RSS (MiB) | RSS slope (MiB/h) | heap (MiB) | heap slope | external (MiB) | external slope |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const { name, samples } of VARIANTS) {
  const last = samples.at(-1);
  const f = (n) => n.toFixed(1);
  console.log(
    `| ${name} | ${f(last.rss / MIB)} | ${f(slope(samples, 'rss'))} | ${f(last.heap / MIB)} | ${f(slope(samples, 'heap'))} | ${f(last.external / MIB)} | ${f(slope(samples, 'external'))} |`,
  );
}
for (const { child } of VARIANTS) child.kill();
agent.destroy();
