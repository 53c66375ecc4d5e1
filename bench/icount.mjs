// `npm run bench:icount [-- --ci] [--check] [--update-baseline] [--update-doc] [--only=<regex>] [--jobs=N]`:
// instructions per call of verify(), handle() and every adapter against their references,
// counted by valgrind's callgrind (issue 37's method, see BENCHMARKS.md "Instruction counts"),
// one process per run. Counts repeat to well under 1 % on a loaded machine, so unlike the
// timed bench they can gate CI: `--check` exits non-zero when a ratio (reference ÷ ours) is
// under its target or more than 2 % under bench/icount-baseline.json (`--check=baseline`: under
// the baseline, or under a target already reached; the other targets listed). `--ci` counts only the
// ratios marked for CI in bench/icount/plan.mjs (the 10-minute subset).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './lib/build.mjs';
import { readDumps, runCounted } from './icount/callgrind.mjs';
import { runHttp } from './icount/http-driver.mjs';
import { RATIOS, runsFor } from './icount/plan.mjs';
import { failures, perCall, ratiosOf, tables } from './icount/report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`) || args.some((arg) => arg.startsWith(`--${name}=`));
// `--check=baseline` gates on the baseline and on the targets already reached (`reached` in
// bench/icount/plan.mjs), and lists the targets still missed without failing: issue 37's
// targets are not all reached yet, and a regression must still fail CI.
const baselineOnly = args.includes('--check=baseline');
const only = args.find((arg) => arg.startsWith('--only='))?.slice(7);
const baselinePath = join(root, 'bench/icount-baseline.json');
const started = Date.now();

if (spawnSync('valgrind', ['--version']).status !== 0)
  throw new Error('valgrind is not installed: apt-get install valgrind (the CI script installs it when missing).');
buildIfStale();

let ratios = flag('ci') ? RATIOS.filter((r) => r.ci) : RATIOS;
if (only) ratios = ratios.filter((r) => new RegExp(only).test(r.id));
const runs = runsFor(ratios);
const readBaseline = () => {
  try {
    return JSON.parse(readFileSync(baselinePath, 'utf8'));
  } catch {
    return undefined;
  }
};
const baseline = readBaseline();
if (baseline && baseline.node !== process.version)
  console.error(`note: the baseline was counted on Node ${baseline.node}, this is ${process.version}`);

const out = mkdtempSync(join(tmpdir(), 'icount-'));
const counts = {};

/** Counts one run in its own process, and keeps its per-call counts under its id. */
async function count(run, index) {
  const prefix = join(out, `run${index}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.error(`… ${run.id} (${index + 1}/${runs.length}, ${seconds} s)`);
  if (run.kind === 'micro') {
    const numbers = [run.size, run.warmSmall, run.warmup, run.calls, run.windows, run.chunk].map(String);
    await runCounted(prefix, fileURLToPath(new URL('./icount/micro-child.mjs', import.meta.url)), [
      run.subject,
      ...numbers,
    ]);
  } else await runHttp(prefix, run);
  // Dump 1 is start-up and warm-up; the windows follow.
  const windows = readDumps(prefix).slice(1, 1 + run.windows);
  if (windows.length !== run.windows)
    throw new Error(`${run.id}: ${windows.length} windows counted, not ${run.windows}`);
  counts[run.id] = perCall(run, windows);
}

// `--jobs=N` runs N processes at a time: a count does not depend on what else runs, so on a
// machine with cores to spare the plan takes a fraction of the time, with the same numbers.
const jobs = Math.max(1, Number(args.find((arg) => arg.startsWith('--jobs='))?.slice(7) ?? 1) || 1);
try {
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const index = next++;
      await count(runs[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, runs.length) }, worker));
} finally {
  rmSync(out, { recursive: true, force: true });
}

const measured = ratiosOf(ratios, counts);
const report = tables(counts, measured, baseline);
console.log(report);
console.log(`\nCounted ${runs.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s.`);

if (flag('update-baseline')) {
  // Read again: another invocation (a different `--only`) may have written it meanwhile.
  const next = { node: process.version, ratios: { ...(readBaseline()?.ratios ?? {}) } };
  for (const r of measured) next.ratios[r.id] = { ratio: r.ratio, ratioNoSha: r.ratioNoSha };
  writeFileSync(baselinePath, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`Wrote ${measured.length} ratios to bench/icount-baseline.json.`);
}
if (flag('update-doc')) {
  const path = join(root, 'BENCHMARKS.md');
  const doc = readFileSync(path, 'utf8');
  const [start, end] = ['<!-- icount:start -->', '<!-- icount:end -->'];
  if (!doc.includes(start) || !doc.includes(end)) throw new Error(`BENCHMARKS.md lacks the ${start} … ${end} markers`);
  writeFileSync(
    path,
    `${doc.slice(0, doc.indexOf(start) + start.length)}\n\n${report}\n\n${doc.slice(doc.indexOf(end))}`,
  );
  console.log('Updated the instruction-count tables in BENCHMARKS.md.');
}
if (flag('check')) {
  const failed = failures(measured, baseline, { targets: baselineOnly ? (r) => r.reached : true });
  if (baselineOnly) {
    const missed = failures(measured, undefined, { targets: (r) => !r.reached }).map(
      (line) => `below target (not gated yet): ${line}`,
    );
    for (const line of missed) console.log(line);
  }
  for (const line of failed) console.error(`FAIL ${line}`);
  if (failed.length > 0) process.exitCode = 1;
  else
    console.log(
      baselineOnly
        ? `All ${measured.length} ratios within 2 % of the baseline, and every target reached so far met.`
        : `All ${measured.length} ratios at or above their targets and within 2 % of the baseline.`,
    );
}
