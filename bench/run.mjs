// `npm run bench`: builds the package if dist/ is older than its sources, then measures
// verify(), handle(), the Web Crypto path, the adapters and the memory store against the
// hand-written limit and the peers, prints ratio tables with PASS/FAIL per target, and
// writes bench/verify-throughput.svg. `--update-doc` also rewrites the tables in BENCHMARKS.md.
// `--quick` runs fewer, shorter rounds (a smoke test of the bench itself, not a measurement).

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const started = Date.now();

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function buildIfStale() {
  let built = 0;
  try {
    built = statSync(join(root, 'dist/index.js')).mtimeMs;
  } catch {}
  const sources = Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'adapters')),
    newest(join(root, 'tsup.config.ts')),
  );
  if (built > sources) return;
  console.log('dist/ is older than the sources: building with tsup first.');
  const result = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('tsup failed; the bench measures the built package, so it stops here.');
}

buildIfStale();
const { verifySuite, handleSuite, webCryptoSuite } = await import('./suites/verify.mjs');
const { httpSuite } = await import('./suites/http.mjs');
const { memorySuite } = await import('./suites/memory.mjs');
const { median } = await import('./lib/measure.mjs');
const { machineLine, ratioTable, httpTable, verdictTable, formatRatio } = await import('./lib/report.mjs');
const { throughputChart } = await import('./lib/chart.mjs');

const micro = quick ? { rounds: 5, batchMs: 10 } : { rounds: 21, batchMs: 25 };
const log = (text) => console.log(text);
const step = (name) => console.error(`… ${name} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

step('verify() against the limit and the peers');
const verifyRows = await verifySuite(micro);
step('handle() with the memory store');
const handleRows = await handleSuite({ ...micro, sizes: [1024, 16 * 1024] });
step('the Web Crypto path');
const webRows = await webCryptoSuite(micro);
step('adapters over HTTP');
const httpRows = await httpSuite(quick ? { rounds: 1, seconds: 0.5 } : { rounds: 3, seconds: 2 });
step('memory per remembered delivery');
const memory = await memorySuite({ count: quick ? 100_000 : 1_000_000 });

const ratioOf = (row, name) => row.results.find((r) => r.name === name);
const verdicts = [];
for (const row of verifyRows) {
  const ours = ratioOf(row, 'verify()');
  const floor = row.size <= 1024 ? 0.9 : 0.95;
  verdicts.push({
    target: `verify() ≥ ${floor.toFixed(2)}× the limit at ${row.label}`,
    measured: formatRatio(ours.ratio),
    pass: ours.ratio >= floor,
  });
}
for (const row of verifyRows) {
  const ours = ratioOf(row, 'verify()');
  const stripe = ratioOf(row, 'stripe');
  const faster = median(ours.ratios.map((r, i) => r / stripe.ratios[i]));
  verdicts.push({
    target: `verify() faster than stripe-node at ${row.label}`,
    measured: `${formatRatio(faster)} stripe`,
    pass: faster > 1,
  });
}
const handle1k = ratioOf(handleRows[0], 'handle() + memory store');
verdicts.push({
  target: 'handle() + memory store ≥ 0.85× the limit at 1 KiB',
  measured: formatRatio(handle1k.ratio),
  pass: handle1k.ratio >= 0.85,
});
for (const row of webRows) {
  const ours = row.results[1];
  verdicts.push({
    target: `Web Crypto verify() ≥ 0.90× raw subtle at ${row.label}`,
    measured: formatRatio(ours.ratio),
    pass: ours.ratio >= 0.9,
  });
}
for (const row of httpRows) {
  verdicts.push({
    target: `${row.framework} adapter ≥ 0.90× its bare route at ${row.label}`,
    measured: formatRatio(row.ratio),
    pass: row.ratio >= 0.9,
  });
}
verdicts.push({
  target: '≤ 256 bytes per remembered id (id + signature, in the window)',
  measured: `${memory.inWindow.toFixed(0)} B`,
  pass: memory.inWindow <= 256,
});

const sections = [
  `Machine: ${machineLine()}${quick ? ' (--quick: smoke run, not a measurement)' : ''}`,
  `### verify() against the limit and the peers\n\nMedian ratio of throughput to the limit in the same round (higher is better); median ops/s in brackets.\n\n${ratioTable(verifyRows)}`,
  `### handle() with the memory store\n\nEvery delivery new: a fresh delivery id and signature, so dedup really claims and completes.\n\n${ratioTable(handleRows)}`,
  `### Web Crypto path against raw \`crypto.subtle.verify\`\n\n${ratioTable(webRows)}`,
  `### Adapters against a bare route in the same framework\n\nautocannon, 8 connections, loopback; the same signed delivery repeated, dedup off (see notes).\n\n${httpTable(httpRows)}`,
  `### Memory of the memory store at ${memory.count.toLocaleString('en-US')} deliveries\n\n` +
    verdictTable([
      {
        target: 'bytes per delivery: id + signature, in the tolerance window',
        measured: `${memory.inWindow.toFixed(0)} B`,
        pass: memory.inWindow <= 256,
      },
      {
        target: 'bytes per delivery: id only, after the window',
        measured: `${memory.afterWindow.toFixed(0)} B`,
        pass: memory.afterWindow <= 256,
      },
    ]),
  `### Targets\n\n${verdictTable(verdicts)}`,
];
const report = sections.join('\n\n');
log(report);

writeFileSync(
  join(root, 'bench/verify-throughput.svg'),
  throughputChart(verifyRows, 'verify throughput per body size (article.sync, node:crypto)'),
);
log(`\nWrote bench/verify-throughput.svg. Finished in ${((Date.now() - started) / 1000).toFixed(0)} s.`);

if (process.argv.includes('--update-doc')) {
  const path = join(root, 'BENCHMARKS.md');
  const doc = readFileSync(path, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!doc.includes(start) || !doc.includes(end)) throw new Error(`BENCHMARKS.md lacks the ${start} … ${end} markers`);
  writeFileSync(
    path,
    `${doc.slice(0, doc.indexOf(start) + start.length)}\n\n${report}\n\n${doc.slice(doc.indexOf(end))}`,
  );
  log('Updated the tables in BENCHMARKS.md.');
}
if (verdicts.some((v) => !v.pass)) process.exitCode = 1;
