// Markdown tables of the ratios, the PASS/FAIL verdicts and the machine line.

import { cpus } from 'node:os';

export function machineLine() {
  const cpu = cpus()[0]?.model?.trim() || 'unknown CPU';
  return `${cpu}, ${cpus().length} cores, Node ${process.version}, ${process.platform}/${process.arch}`;
}

const x = (ratio) => `${ratio.toFixed(2)}×`;
const rate = (ops) => (ops >= 100 ? Math.round(ops).toLocaleString('en-US') : ops.toFixed(1));

export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** One row per body size; each cell is a contender's median ratio to the first contender. */
export function ratioTable(rows) {
  const names = rows[0].results.map((r) => r.name);
  return table(
    ['body', ...names.map((name, i) => (i === 0 ? `${name} (ops/s)` : `${name}`))],
    rows.map(({ label, results }) => [
      label,
      ...results.map((r, i) =>
        i === 0 ? `1.00× (${rate(r.opsPerSecond)})` : `${x(r.ratio)} (${rate(r.opsPerSecond)})`,
      ),
    ]),
  );
}

export function httpTable(rows) {
  return table(
    ['framework', 'body', 'bare route (req/s)', 'adapter (req/s)', 'adapter ÷ bare'],
    rows.map((r) => [r.framework, r.label, rate(r.bare), rate(r.ours), x(r.ratio)]),
  );
}

/**
 * The adapters behind a host AsyncLocalStorage against the same adapters without: the rows
 * of `httpTable` that measured both.
 */
export function hostContextTable(rows) {
  return table(
    [
      'framework',
      'body',
      'adapter (req/s)',
      'adapter in a host ALS (req/s)',
      'in ALS ÷ without',
      'rounds min–max',
      'in ALS ÷ bare',
      'server CPU per request: without ÷ in ALS',
      'rounds min–max',
    ],
    rows
      .filter((r) => r.host)
      .map((r) => [
        r.framework,
        r.label,
        rate(r.ours),
        rate(r.host.perSecond),
        x(r.host.ratio),
        `${x(Math.min(...r.host.ratios))}–${x(Math.max(...r.host.ratios))}`,
        x(r.host.ofBare),
        r.host.cpu ? x(r.host.cpu.ratio) : '—',
        r.host.cpu ? `${x(Math.min(...r.host.cpu.ratios))}–${x(Math.max(...r.host.cpu.ratios))}` : '—',
      ]),
  );
}

/** Milliseconds per route and each route's ratio to the first, at p50, p90 and p99. */
export function latencyTable(rows) {
  const ms = (value) => value.toFixed(2);
  return table(
    ['route', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'p50 ÷ bare', 'p90 ÷ bare', 'p99 ÷ bare'],
    rows.map((r, i) => [
      r.name,
      ms(r.p50),
      ms(r.p90),
      ms(r.p99),
      i === 0 ? '1.00×' : x(r.p50Ratio),
      i === 0 ? '1.00×' : x(r.p90Ratio),
      i === 0 ? '1.00×' : x(r.p99Ratio),
    ]),
  );
}

/** One row per dedup store: handle() deliveries per second (median, slowest and fastest round) and its round trips or statements. */
export function storesTable(rows) {
  return table(
    ['store', 'deliveries/s (median)', 'rounds min–max', 'µs per delivery', 'per delivery'],
    rows.map((r) => [
      r.name,
      rate(r.perSecond),
      `${rate(r.min)}–${rate(r.max)}`,
      (1e6 / r.perSecond).toFixed(0),
      r.perDelivery === undefined ? '— (in memory)' : `${r.perDelivery} ${r.unit}`,
    ]),
  );
}

/**
 * PASS/FAIL per target; with `spread`, the p25–p75 range of the per-round ratios behind each,
 * and with `range` their min–max.
 */
export function verdictTable(verdicts) {
  const spread = verdicts.some((v) => v.spread);
  const range = verdicts.some((v) => v.range);
  return table(
    ['target', 'measured', ...(spread ? ['rounds p25–p75'] : []), ...(range ? ['rounds min–max'] : []), 'result'],
    verdicts.map((v) => [
      v.target,
      v.measured,
      ...(spread ? [v.spread ?? '—'] : []),
      ...(range ? [v.range ?? '—'] : []),
      v.pass ? 'PASS' : 'FAIL',
    ]),
  );
}

export { x as formatRatio };
