import { describe, expect, it } from 'vitest';
import { KeptLookups } from './kept-lookups.js';
import { KeepingReads, KEEPING_READ_MS, MAX_KEEPING_READS } from './kept-gate.js';

describe('the lookups a pass makes of kept token hashes', () => {
  it('asks each hash, least recently asked first', () => {
    const lookups = new KeptLookups(undefined, () => 0);
    expect(lookups.order(['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
    lookups.asked('a');
    lookups.asked('c');
    expect(lookups.order(['a', 'b', 'c'])).toEqual(['b', 'a', 'c']);
  });

  it('in tenant mode asks no more than the cap refilled since the last pass, and reaches every hash', () => {
    const time = { now: 0 };
    const lookups = new KeptLookups(50, () => time.now);
    const hashes = Array.from({ length: 201 }, (_, i) => `h${i}`);
    const asked = new Set<string>();
    let passes = 0;
    while (asked.size < hashes.length) {
      passes++;
      const share = lookups.order(hashes);
      expect(share.length).toBeLessThanOrEqual(50);
      for (const hash of share) {
        lookups.asked(hash);
        asked.add(hash);
      }
      time.now += 1000;
    }
    // ⌈201 / 50⌉ passes a second apart.
    expect(passes).toBe(5);
  });
});

describe('places for bodies read to keep', () => {
  it(`holds ${MAX_KEEPING_READS} at once, freed when kept or after ${KEEPING_READ_MS} ms`, () => {
    const time = { now: 0 };
    const reads = new KeepingReads(() => time.now);
    const heads = Array.from({ length: MAX_KEEPING_READS + 1 }, () => ({}));
    for (const head of heads.slice(0, MAX_KEEPING_READS)) expect(reads.take(head)).toBe(true);
    expect(reads.take(heads[MAX_KEEPING_READS]!)).toBe(false);
    reads.release(heads[0]);
    reads.release(heads[0]);
    reads.release('not a head');
    expect(reads.take(heads[MAX_KEEPING_READS]!)).toBe(true);
    expect(reads.take({})).toBe(false);
    time.now += KEEPING_READ_MS;
    expect(reads.take({})).toBe(true);
  });
});
