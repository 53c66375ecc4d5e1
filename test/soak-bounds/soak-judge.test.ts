import { describe, expect, it } from 'vitest';
// @ts-expect-error: the soak is plain JavaScript, without declarations
import { JUDGED_AGE, killPool, SPARE_AFTER } from '../../bench/soak/chaos.mjs';
// @ts-expect-error: the soak is plain JavaScript, without declarations
import { memorySlopes } from '../../bench/soak/metrics.mjs';

// The soak's memory judge. Its first hour-long runs failed two configurations on heap growth
// that was a process restarted by chaos a minute before the judged half, still warming up: its
// heap grew about 1 MiB over its first quarter hour and then held. A process that warm must
// not be judged, and chaos must leave one process of each kind old enough to be.

const MIN = 60_000;
const MIB = 1024 * 1024;
const RUN = { startedAt: 0, endedAt: 60 * MIN };

/** Samples every 5 s from `bornAt` to the end; the heap grows `warmUpMiB` over 15 min, then by `leakMiBPerHour`. */
function process_(
  name: string,
  { bornAt, warmUpMiB = 1, leakMiBPerHour = 0 }: { bornAt: number; warmUpMiB?: number; leakMiBPerHour?: number },
) {
  const samples = [];
  for (let t = bornAt + 5_000; t <= RUN.endedAt; t += 5_000) {
    const age = t - bornAt;
    const heap = 6 + warmUpMiB * Math.min(1, age / (15 * MIN)) + (leakMiBPerHour * age) / (60 * MIN);
    samples.push({ name, pid: bornAt, t, heapUsed: heap * MIB, rss: 60 * MIB, eld: { p99: 1, max: 2 } });
  }
  return samples;
}

describe('the soak judge', () => {
  it('does not judge a process restarted a minute before the half, while it warms up', () => {
    const samples = process_('receiver-0', { bornAt: 29 * MIN });
    const [row] = memorySlopes(samples, { ...RUN, warmUpMs: 15 * MIN });
    // The warm-up alone fits a slope over the bound: it must not be the verdict.
    expect(row.heapSlope).toBeGreaterThan(1);
    expect(row.judged).toBe(false);
  });

  it('judges a warm process, and still finds its leak', () => {
    const warm = memorySlopes(process_('receiver-0', { bornAt: 10 * MIN }), { ...RUN, warmUpMs: 15 * MIN });
    expect(warm[0]).toMatchObject({ judged: true });
    expect(warm[0].heapSlope).toBeLessThan(0.1);
    const leaking = memorySlopes(process_('receiver-0', { bornAt: 10 * MIN, leakMiBPerHour: 2 }), {
      ...RUN,
      warmUpMs: 15 * MIN,
    });
    expect(leaking[0].judged).toBe(true);
    expect(leaking[0].heapSlope).toBeCloseTo(2, 1);
    expect(leaking[0].heapByAge.map(([age]: number[]) => age)).toEqual([1, 5, 10, 15, 20, 30, 45]);
  });

  it('kills the slots numbered 0 only in the first fifth, so one of each kind is warm at the half', () => {
    const slots = ['receiver-0', 'receiver-1', 'worker-0', 'worker-1'].map((name) => ({ name }));
    const names = (elapsedMs: number) =>
      killPool(slots, { elapsedMs, durationMs: 60 * MIN }).map((s: { name: string }) => s.name);
    expect(names(11 * MIN)).toEqual(['receiver-0', 'receiver-1', 'worker-0', 'worker-1']);
    // A kill here restarts a process that would be minutes old at the half.
    expect(names(25 * MIN)).toEqual(['receiver-1', 'worker-1']);
    expect(names(13 * MIN)).toEqual(['receiver-1', 'worker-1']);
    // A slot 0 restarted at the last moment is still old enough at the half to be judged.
    expect(0.5 - SPARE_AFTER).toBeGreaterThan(JUDGED_AGE);
  });
});
