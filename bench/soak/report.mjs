// The soak's report: bench/soak/reports/<date>-<config>.md and its SVG, with the commit, the
// machine and every figure the run measured.

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from '../lib/report.mjs';
import { soakChart } from './plot.mjs';
import { JUDGED_AGE } from './chaos.mjs';
import { AGES_MIN } from './metrics.mjs';

const GIB = 1024 ** 3;
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '—');

export function machine() {
  return {
    cpu: cpus()[0]?.model?.trim() || 'unknown CPU',
    cores: cpus().length,
    memory: `${(totalmem() / GIB).toFixed(1)} GiB (${(freemem() / GIB).toFixed(1)} GiB free)`,
    load: loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
  };
}

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Read when the run starts: commits made while it runs are not what it measured. */
const COMMIT = commit();

export function markdown(result, svgName) {
  const m = machine();
  const { options, verdict, ledger } = result;
  const minutes = (result.endedAt - result.startedAt) / 60_000;
  const slopeNote =
    options.slopeBound !== null
      ? `The bound is ${options.slopeBound} MiB/h of heap after a full GC, fitted over the last half of the run, per process that lived through it and was at least ${JUDGED_AGE * 100} % of the run old at the half (younger ones are still warming up: they are shown, not judged).${minutes < 30 ? ' This run is under 30 minutes: its slope extrapolates warm-up and chaos to an hour and is not meaningful.' : ''}`
      : `This run is ${minutes.toFixed(1)} min long: a slope over ${(minutes / 2).toFixed(1)} min is not meaningful (it extrapolates warm-up and a store restart's reconnects to an hour), so the judged bound is a loose ${options.growthBound} MiB of heap growth over the last half, which only a gross leak crosses. Run 30 minutes or more for the 1 MiB/h bound.`;
  const lines = [
    `# Soak: ${result.label}`,
    '',
    `${result.breaches.length ? `**FAIL: ${result.breaches.length} breach(es)**` : '**PASS**'}. Commit \`${COMMIT}\`, ${new Date(result.startedAt).toISOString()}, ${minutes.toFixed(1)} min at ${options.rate} requests/s, seed ${options.seed}, chaos ${options.chaos ? 'on' : 'off'}, retries after 2, 5, 10 s × ${options.retryScale}.`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}, ${m.platform}; load average ${result.load.before} at the start, ${result.load.after} at the end. On a shared machine these figures are indicative only.`,
    '',
    '## Deliveries',
    '',
    table(
      ['figure', 'value'],
      [
        ['requests sent', result.sent],
        ['skipped (too many in flight)', ledger.skipped],
        ['legit deliveries answered 200', verdict.figures.accepted],
        ['legit deliveries given up after the retries', verdict.figures.gaveUp],
        ['answers with "duplicate": true', verdict.figures.duplicatesAnswered],
        ['legit deliveries with more than one effect', verdict.figures.repeated],
        ['hostile requests', verdict.figures.hostile],
        ['breaches', result.breaches.length],
      ],
    ),
    '',
    '### Answers by kind',
    '',
    table(
      ['kind and status', 'answers'],
      [...ledger.counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => [key, n]),
    ),
    '',
    '## Breaches',
    '',
    result.breaches.length
      ? result.breaches
          .slice(0, 200)
          .map((b) => `- ${b.type}: ${b.detail}`)
          .join('\n')
      : 'None.',
    '',
    '## Memory',
    '',
    `![heap and p99](${svgName})`,
    '',
    slopeNote,
    ' RSS is reported, not judged: the allocator keeps pages it freed.',
    '',
    table(
      [
        'process',
        'samples',
        'age at the half (min)',
        'heap first → last (MiB)',
        'heap slope (MiB/h)',
        'RSS last (MiB)',
        'RSS slope (MiB/h)',
        'outside the heap: external slope (MiB/h)',
        'event-loop delay p99, median of samples (ms)',
        'max (ms)',
      ],
      result.memory.map((r) => [
        `${r.name} (pid ${r.pid})`,
        r.samples,
        f1(r.ageAtHalfMin),
        `${f1(r.heapFirst)} → ${f1(r.heapLast)}`,
        r.judged ? f1(r.heapSlope) : `${f1(r.heapSlope)} (warming up: not judged)`,
        f1(r.rssLast),
        f1(r.rssSlope),
        f1(r.externalSlope),
        f1(r.eldP99),
        f1(r.eldMax),
      ]),
    ),
    '',
    ...warmUp(result.memory),
    `Restarts by chaos: ${Object.entries(result.restarts)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ')}.`,
    '',
    '## Answer time per minute (legit requests, every attempt)',
    '',
    table(
      ['minute', 'answers', 'p50 (ms)', 'p99 (ms)'],
      result.latency.map((r) => [r.minute + 1, r.count, f1(r.p50), f1(r.p99)]),
    ),
    '',
    '## Open handles at the end (after the drain, before SIGTERM)',
    '',
    table(
      ['process', 'resources'],
      [...result.handles.entries()].map(([name, resources]) => [
        name,
        Object.entries(resources)
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', '),
      ]),
    ),
    '',
    '## Chaos timeline',
    '',
    result.timeline.map(({ t, line }) => `- +${((t - result.startedAt) / 1000).toFixed(1)} s ${line}`).join('\n'),
    '',
    '## Log lines from the receivers and workers (ids folded)',
    '',
    result.logs.size
      ? table(
          ['line', 'count'],
          [...result.logs.entries()]
            .sort(([, a], [, b]) => b - a)
            .slice(0, 30)
            .map(([line, n]) => [line.replaceAll('|', '\\|'), n]),
        )
      : 'None.',
    '',
  ];
  return lines.join('\n');
}

/** Writes the Markdown and the SVG; returns the Markdown's path. */
export function writeReport(result) {
  const dir = result.options.reportDir ?? fileURLToPath(new URL('./reports', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const date = new Date(result.startedAt).toISOString().slice(0, 10);
  const tenants = result.options.tenants ? `-${result.options.tenants}-tenants` : '';
  const base = `${date}-${result.store}-${result.queue}${tenants}-${Math.round((result.endedAt - result.startedAt) / 60_000)}min`;
  writeFileSync(join(dir, `${base}.svg`), soakChart(result));
  writeFileSync(join(dir, `${base}.md`), markdown(result, `${base}.svg`));
  return join(dir, `${base}.md`);
}

/** The judged processes' heap at each age they reached: where their warm-up ends. */
function warmUp(memory) {
  const rows = memory.filter((r) => r.judged && r.heapByAge.length);
  if (!rows.length) return [];
  const ages = AGES_MIN.filter((age) => rows.some((r) => r.heapByAge.some(([a]) => a === age)));
  return [
    'Heap (MiB) of each judged process by its age, from its start: its warm-up.',
    '',
    table(
      ['process', ...ages.map((age) => `${age} min`)],
      rows.map((r) => [
        `${r.name} (pid ${r.pid})`,
        ...ages.map((age) => {
          const point = r.heapByAge.find(([a]) => a === age);
          return point ? f1(point[1]) : '';
        }),
      ]),
    ),
    '',
  ];
}
