// Turns counted runs into ratios, judges them against the targets and the committed baseline,
// and writes the tables.

import { RUNS } from './plan.mjs';

/** Below the committed baseline by more than this fails `--check`. */
export const BASELINE_SLACK = 0.02;

/**
 * Per call, from a run's window dumps: the mean of the windows left when a quarter at each end
 * is dropped (at least one: of three windows, the median; of nine, the middle five), SHA-256's
 * share likewise, and the spread. Trimmed, so a window that holds a rare event (a mark-compact
 * and the re-optimising after it, which can reach into the next window) does not move the run;
 * a mean of the rest, so the periodic events (a scavenge every thousand calls or so) are paid
 * pro rata wherever they fall: where they fall moves with anything that shifts allocation,
 * even the length of the checkout's path.
 */
export function perCall(run, windowDumps) {
  const irs = windowDumps.map((d) => d.ir / run.calls);
  const shas = windowDumps.map((d) => d.sha / run.calls);
  const order = irs.map((_, i) => i).sort((a, b) => irs[a] - irs[b]);
  const cut = Math.max(1, Math.floor(order.length / 4));
  const kept = order.length > 2 ? order.slice(cut, -cut) : order;
  const mean = (values) => kept.reduce((sum, i) => sum + values[i], 0) / kept.length;
  const ir = mean(irs);
  return { ir, sha: mean(shas), spread: (Math.max(...irs) - Math.min(...irs)) / ir, windows: irs };
}

/** reference ÷ ours, with and without SHA-256's compression, for every ratio both runs have. */
export function ratiosOf(ratios, counts) {
  return ratios
    .filter((r) => counts[r.reference] && counts[r.ours])
    .map((r) => {
      const ref = counts[r.reference];
      const ours = counts[r.ours];
      return { ...r, ratio: ref.ir / ours.ir, ratioNoSha: (ref.ir - ref.sha) / (ours.ir - ours.sha) };
    });
}

/**
 * Every failed check, as sentences: under its floor, or more than 2 % under the baseline.
 * `targets` says which floors count: all (true), none (false), or those a predicate picks.
 */
export function failures(measured, baseline, { targets = true } = {}) {
  const failed = [];
  for (const r of measured) {
    const judged = typeof targets === 'function' ? targets(r) : targets;
    if (judged && r.floor !== undefined && r.ratio < r.floor)
      failed.push(`${r.id}: ${r.ratio.toFixed(4)} is under the target ${r.floor}`);
    const base = baseline?.ratios?.[r.id];
    if (!base) continue;
    for (const key of ['ratio', 'ratioNoSha']) {
      if (r[key] < base[key] * (1 - BASELINE_SLACK))
        failed.push(
          `${r.id}${key === 'ratioNoSha' ? ' (without SHA-256)' : ''}: ${r[key].toFixed(4)} is more than 2 % under the baseline ${base[key].toFixed(4)}`,
        );
    }
  }
  return failed;
}

const int = (value) => Math.round(value).toLocaleString('en-US');
const pct = (value) => `${(value * 100).toFixed(2)} %`;

/** The counts table and the ratios table, in Markdown. */
export function tables(counts, measured, baseline) {
  const countRows = RUNS.filter((run) => counts[run.id]).map((run) => {
    const c = counts[run.id];
    return `| ${run.id} | ${int(c.ir)} | ${int(c.sha)} | ${int(c.ir - c.sha)} | ${pct(c.spread)} |`;
  });
  const ratioRows = measured.map((r) => {
    const base = baseline?.ratios?.[r.id];
    const floor = r.floor === undefined ? '—' : `≥ ${r.floor}`;
    const verdict =
      (r.floor !== undefined && r.ratio < r.floor) ||
      (base && (r.ratio < base.ratio * (1 - BASELINE_SLACK) || r.ratioNoSha < base.ratioNoSha * (1 - BASELINE_SLACK)))
        ? 'FAIL'
        : 'PASS';
    return `| ${r.id} | ${r.ratio.toFixed(4)} | ${r.ratioNoSha.toFixed(4)} | ${floor} | ${base ? base.ratio.toFixed(4) : '—'} | ${r.ci ? 'yes' : 'no'} | ${verdict} |`;
  });
  return [
    '| run | instructions per call | of which SHA-256 | without SHA-256 | windows max–min |',
    '|---|---:|---:|---:|---:|',
    ...countRows,
    '',
    '| ratio (reference ÷ ours) | ratio | without SHA-256 | target | baseline | in `--ci` | result |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...ratioRows,
  ].join('\n');
}
