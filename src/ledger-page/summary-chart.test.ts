import { describe, expect, it } from 'vitest';
import { axisMax, CHART, hourBuckets, summaryChart } from './summary-chart.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 28, 8);
const rects = (svg: string) =>
  [
    ...svg.matchAll(
      /<rect class="bar" data-outcome="(\w+)" data-hour="(\d+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g,
    ),
  ].map(([, outcome, hour, x, y, width, height]) => ({
    outcome,
    hour: Number(hour),
    x: Number(x),
    y: Number(y),
    width: Number(width),
    height: Number(height),
  }));

describe('the outcomes chart', () => {
  it('rounds the axis up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 2, 3, 7, 10, 11, 45, 101, 4000].map(axisMax)).toEqual([1, 1, 2, 5, 10, 10, 20, 50, 200, 5000]);
  });

  it('has one bucket per hour, zero where the ledger returned none, duplicates summed', () => {
    const buckets = hourBuckets({
      hours: [
        { hour: T0 + H, delivered: 2, refused: 1, rejected: 0, failed: 0 },
        { hour: T0 + H, delivered: 1, refused: 0, rejected: 0, failed: 0 },
        { hour: T0 - 5 * H, delivered: 9, refused: 0, rejected: 0, failed: 0 },
      ],
      from: T0 + 600_000,
      to: T0 + 2 * H + 5,
    });
    expect(buckets.map((bucket) => bucket.hour)).toEqual([T0, T0 + H, T0 + 2 * H]);
    expect(buckets[1]).toEqual({ hour: T0 + H, delivered: 3, refused: 1, rejected: 0, failed: 0 });
    expect(buckets[0]!.delivered + buckets[2]!.delivered).toBe(0);
  });

  it("stacks each hour's counts bottom-up, scaled to the axis", () => {
    const svg = summaryChart({
      hours: [
        { hour: T0, delivered: 6, refused: 3, rejected: 0, failed: 1 },
        { hour: T0 + H, delivered: 0, refused: 5, rejected: 0, failed: 0 },
      ],
      from: T0,
      to: T0 + H,
    }).markup;
    // Plot 196 units tall from y 224 up, two slots of 354 with bars 283.2 wide; tallest bar 10,
    // axis 10, so each count is 19.6 units.
    expect(rects(svg)).toEqual([
      { outcome: 'delivered', hour: T0, x: 79.4, y: 106.4, width: 283.2, height: 117.6 },
      { outcome: 'refused', hour: T0, x: 79.4, y: 47.6, width: 283.2, height: 58.8 },
      { outcome: 'failed', hour: T0, x: 79.4, y: 28, width: 283.2, height: 19.6 },
      { outcome: 'refused', hour: T0 + H, x: 433.4, y: 126, width: 283.2, height: 98 },
    ]);
    expect(CHART.top + CHART.height - CHART.top - CHART.bottom).toBe(224);
    expect(svg).toContain('<title>2026-11-28 08:00 UTC: 3 refused</title>');
    expect(svg).toMatch(/data-outcome="delivered"[^>]*>delivered 6</);
    expect(svg).toMatch(/data-outcome="refused"[^>]*>refused 8</);
    expect(svg).toContain(
      'aria-label="Outcomes per hour from 2026-11-28 08:00 UTC: 6 delivered, 8 refused, 0 rejected, 1 failed"',
    );
    expect(svg).not.toContain('No requests');
    expect(svg).not.toMatch(/style=|<script|on\w+=/i);
  });

  it('draws an empty frame with a message when nothing was counted, and ignores odd counts', () => {
    const svg = summaryChart({
      hours: [{ hour: T0, delivered: -3, refused: Number.NaN, rejected: '7' as unknown as number, failed: 0 }],
      from: T0,
      to: T0 + 23 * H,
    }).markup;
    expect(rects(svg)).toEqual([]);
    expect(svg).toContain('No requests in these hours');
    expect((svg.match(/>\d\d:00</g) ?? []).length).toBe(12);
  });
});
