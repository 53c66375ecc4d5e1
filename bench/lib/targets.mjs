// Issue 23's targets (issue 15's, raised), judged on one run's results. Each verdict keeps the p25–p75 range of
// its per-round ratios, so the report can say how much the rounds disagreed.

import { formatRatio } from './report.mjs';
import { median, quartiles } from './measure.mjs';

/** How far ahead of each peer verify() must be, at every size. */
const PEERS = [
  ['stripe', 1.5],
  ['octokit', 1.1],
  ['standardwebhooks', 1.0],
];
const resultOf = (row, name) => row.results.find((r) => r.name === name);
const spreadOf = (ratios) => quartiles(ratios).map(formatRatio).join('–');
const rangeOf = (ratios) => `${formatRatio(Math.min(...ratios))}–${formatRatio(Math.max(...ratios))}`;

/** A ratio of ours to a baseline that must be at least `floor`. */
function atLeast(target, ratios, floor, suffix = '') {
  const ratio = median(ratios);
  return {
    target,
    measured: `${formatRatio(ratio)}${suffix}`,
    spread: spreadOf(ratios),
    range: rangeOf(ratios),
    pass: ratio >= floor,
  };
}

/**
 * @param {{ verify, handle, web, http, latency, memory }} results what the suites returned
 * @returns {{ target: string, measured: string, spread?: string, pass: boolean }[]}
 */
export function judge({ verify, handle, web, http, latency, memory }) {
  const verdicts = [];
  for (const row of verify) {
    verdicts.push(atLeast(`verify() ≥ 0.95× the limit at ${row.label}`, resultOf(row, 'verify()').ratios, 0.95));
  }
  for (const row of verify.filter((r) => r.size === 1024)) {
    const ours = resultOf(row, 'verify()').ratios;
    const reference = resultOf(row, 'limit, fastest HMAC').ratios;
    const ratios = ours.map((r, i) => r / reference[i]);
    verdicts.push(atLeast(`verify() ≥ 0.90× the limit with the fastest HMAC at ${row.label}`, ratios, 0.9));
  }
  for (const [peer, floor] of PEERS) {
    for (const row of verify) {
      const ours = resultOf(row, 'verify()').ratios;
      const theirs = resultOf(row, peer).ratios;
      const ratios = ours.map((r, i) => r / theirs[i]);
      verdicts.push(atLeast(`verify() ≥ ${floor.toFixed(2)}× ${peer} at ${row.label}`, ratios, floor, ` ${peer}`));
    }
  }
  for (const row of handle) {
    const ratios = resultOf(row, 'handle() + memory store').ratios;
    verdicts.push(atLeast(`handle() + memory store ≥ 0.90× the deduplicating limit at ${row.label}`, ratios, 0.9));
  }
  for (const row of web) {
    verdicts.push(atLeast(`Web Crypto verify() ≥ 0.90× raw subtle at ${row.label}`, row.results[1].ratios, 0.9));
  }
  for (const row of http) {
    verdicts.push(atLeast(`${row.framework} adapter ≥ 0.95× its bare route at ${row.label}`, row.ratios, 0.95));
  }
  // p99 is not judged: over a few hundred requests on a shared machine it measures the neighbours.
  for (const row of latency.rows.filter((r) => r.target)) {
    for (const [p, ceiling] of [
      ['p50', 0.9],
      ['p90', 0.95],
    ]) {
      const ratios = row[`${p}Ratios`];
      const ratio = median(ratios);
      verdicts.push({
        target: `${row.name}: 1 MiB latency ≤ ${ceiling.toFixed(2)}× the bare route at ${p}`,
        measured: formatRatio(ratio),
        spread: spreadOf(ratios),
        range: rangeOf(ratios),
        pass: ratio <= ceiling,
      });
    }
  }
  verdicts.push({
    target: '≤ 256 bytes per remembered delivery (one key: its id)',
    measured: `${memory.inWindow.toFixed(0)} B`,
    pass: memory.inWindow <= 256,
  });
  return verdicts;
}
