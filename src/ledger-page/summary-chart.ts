import type { LedgerHour } from '../ledger/ledger-row.js';
import { html, type SafeHtml } from './html.js';

const HOUR_MS = 3_600_000;
/** Most bars drawn: a month of hours. */
const MAX_BARS = 31 * 24;

/** The outcomes stacked in each bar, bottom first, with their colours. */
export const OUTCOMES = [
  { key: 'delivered', colour: '#2e7d32' },
  { key: 'refused', colour: '#e07b00' },
  { key: 'rejected', colour: '#7b5ea7' },
  { key: 'failed', colour: '#c62828' },
] as const;

/** The chart's frame, in SVG user units. */
export const CHART = { width: 760, height: 260, left: 44, right: 8, top: 28, bottom: 36 } as const;
// Literals, not sums of CHART's fields: a bundler keeps a module-level property read (a getter
// could run), which would pull the page into every bundle of the package's core.
const PLOT_WIDTH = 708; // CHART.width - CHART.left - CHART.right
const PLOT_HEIGHT = 196; // CHART.height - CHART.top - CHART.bottom

/** What {@link summaryChart} draws: the hours `summary()` returned, over `from`…`to` (epoch ms). */
export interface ChartInput {
  hours: readonly LedgerHour[];
  from: number;
  to: number;
}

/** One bucket per UTC hour from `from` to `to`, hours the ledger did not return counted as zero. */
export function hourBuckets({ hours, from, to }: ChartInput): LedgerHour[] {
  const first = Math.floor(from / HOUR_MS) * HOUR_MS;
  const last = Math.max(first, Math.min(Math.floor(to / HOUR_MS) * HOUR_MS, first + (MAX_BARS - 1) * HOUR_MS));
  const buckets = new Map<number, LedgerHour>();
  for (let hour = first; hour <= last; hour += HOUR_MS)
    buckets.set(hour, { hour, delivered: 0, refused: 0, rejected: 0, failed: 0 });
  for (const counted of hours) {
    const bucket = buckets.get(Math.floor(counted.hour / HOUR_MS) * HOUR_MS);
    if (!bucket) continue;
    for (const { key } of OUTCOMES) bucket[key] += countOf(counted[key]);
  }
  return [...buckets.values()];
}

/** A count as drawn: a store's odd value (negative, NaN, a string) counts as nothing. */
function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** The axis' top: the smallest 1, 2 or 5 × 10^k at or above the tallest bar (at least 1). */
export function axisMax(tallest: number): number {
  if (tallest <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(tallest));
  for (const step of [1, 2, 5, 10]) if (step * power >= tallest) return step * power;
  return 10 * power;
}

const round = (value: number): number => Math.round(value * 100) / 100;
const clock = (hour: number): string => `${new Date(hour).toISOString().slice(11, 16)}`;
const day = (hour: number): string => new Date(hour).toISOString().slice(0, 10);

/**
 * Outcomes per hour as inline SVG markup, drawn on the server: one bar per UTC hour, its
 * delivered, refused, rejected and failed counts stacked, a `<title>` on each part, the axis
 * and hours labelled as text and a legend with the totals. No script, no style attribute.
 */
export function summaryChart(input: ChartInput): SafeHtml {
  const buckets = hourBuckets(input);
  const total = (bucket: LedgerHour): number => OUTCOMES.reduce((sum, { key }) => sum + bucket[key], 0);
  const top = axisMax(Math.max(0, ...buckets.map(total)));
  const slot = PLOT_WIDTH / buckets.length;
  const barWidth = round(Math.max(1, slot * 0.8));
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 12));
  const bottom = CHART.top + PLOT_HEIGHT;

  const bars = buckets.map((bucket, index) => {
    const x = round(CHART.left + index * slot + (slot - barWidth) / 2);
    let y = bottom;
    const parts = OUTCOMES.filter(({ key }) => bucket[key] > 0).map(({ key, colour }) => {
      const height = round((bucket[key] / top) * PLOT_HEIGHT);
      y = round(y - height);
      return html`<rect class="bar" data-outcome="${key}" data-hour="${bucket.hour}" x="${x}" y="${y}" width="${barWidth}" height="${height}" fill="${colour}"><title>${day(bucket.hour)} ${clock(bucket.hour)} UTC: ${bucket[key]} ${key}</title></rect>`;
    });
    const label =
      index % labelEvery === 0
        ? html`<text x="${round(x + barWidth / 2)}" y="${bottom + 16}" text-anchor="middle" font-size="11">${clock(bucket.hour)}</text>`
        : '';
    return html`${parts}${label}`;
  });

  const ticks = [0, top / 2, top].map((value) => {
    const y = round(bottom - (value / top) * PLOT_HEIGHT);
    return html`<line x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${CHART.left - 6}" y="${y + 4}" text-anchor="end" font-size="11">${Number.isInteger(value) ? value : value.toFixed(1)}</text>`;
  });

  const totals = OUTCOMES.map(({ key }) => ({ key, count: buckets.reduce((sum, bucket) => sum + bucket[key], 0) }));
  const legend = OUTCOMES.map(({ key, colour }, index) => {
    const x = CHART.left + index * 150;
    const count = totals[index]?.count ?? 0;
    return html`<rect x="${x}" y="8" width="12" height="12" fill="${colour}"/><text class="legend" data-outcome="${key}" x="${x + 16}" y="18" font-size="12">${key} ${count}</text>`;
  });
  const summary = totals.map(({ key, count }) => `${count} ${key}`).join(', ');
  const first = buckets[0]?.hour ?? input.from;
  const empty =
    totals.every(({ count }) => count === 0) &&
    html`<text x="${CHART.left + PLOT_WIDTH / 2}" y="${CHART.top + PLOT_HEIGHT / 2}" text-anchor="middle" font-size="13" fill="#666">No requests in these hours</text>`;

  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${CHART.width} ${CHART.height}" width="${CHART.width}" height="${CHART.height}" role="img" aria-label="Outcomes per hour from ${day(first)} ${clock(first)} UTC: ${summary}">${ticks}${bars}${legend}${empty}<text x="${CHART.width - CHART.right}" y="${CHART.height - 4}" text-anchor="end" font-size="11" fill="#666">hours in UTC</text></svg>`;
}
