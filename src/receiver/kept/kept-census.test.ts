import { describe, expect, it } from 'vitest';
import { KeptCensus } from './kept-census.js';
import { keptId, keptIdParts } from './kept-id.js';

const T0 = Date.parse('2026-06-01T12:00:00.000Z');

/** A census of `groups`: for each token hash, how many requests, kept one a second from `start`. */
function censusOf(groups: Record<string, number>, start = T0) {
  const census = new KeptCensus();
  let at = start;
  const listed = [];
  for (const [hash, count] of Object.entries(groups)) {
    for (let i = 0; i < count; i++) listed.push({ id: keptId(at++ * 1000, `${hash}-${i}`), tokenSha256: hash });
  }
  census.replace(listed, T0);
  return census;
}

describe('kept request ids', () => {
  it('carry the arrival time and the delivery, and sort by arrival as text', () => {
    const early = keptId(T0, 'abcdef0123456789');
    const late = keptId(T0 + 1, 'abcdef0123456789');
    expect(keptIdParts(early)).toEqual({ receivedAt: T0, delivery: 'abcdef0123456789' });
    expect(early < late).toBe(true);
    expect(keptId(T0, 'd')).not.toBe(keptId(T0, 'd'));
  });

  it('read an id of another shape (an older version) as the oldest, of no known delivery', () => {
    expect(keptIdParts('0b0f1e4c-2d1a-4c55-9f0e-0d8f3c1b2a99')).toEqual({ receivedAt: 0, delivery: undefined });
    expect(keptIdParts('k1.zz!.x.y')).toEqual({ receivedAt: 0, delivery: undefined });
  });
});

describe('the fair share of a full kept store', () => {
  it('gives way with the oldest request of the largest group', () => {
    const census = censusOf({ junk: 3, other: 2 });
    expect(census.victimFor('new')).toEqual({ id: census.idsOf('junk')[0], tokenSha256: 'junk' });
  });

  it('between groups of the largest size, gives way with the group whose oldest is oldest', () => {
    const census = censusOf({ later: 2 }, T0 + 100);
    for (const { id, tokenSha256 } of [
      { id: keptId(T0 * 1000, 'a'), tokenSha256: 'earlier' },
      { id: keptId(T0 * 1000 + 1, 'b'), tokenSha256: 'earlier' },
    ]) {
      census.add(id, tokenSha256);
    }
    expect(census.victimFor('new')?.tokenSha256).toBe('earlier');
  });

  it('refuses a request whose own group is already the largest, ties included', () => {
    expect(censusOf({ reused: 5, real: 1 }).victimFor('reused')).toBeUndefined();
    expect(censusOf({ a: 1, b: 1 }).victimFor('a')).toBeUndefined();
    // A newcomer among groups of one (random tokens) takes the oldest place.
    expect(censusOf({ a: 1, b: 1 }).victimFor('c')?.tokenSha256).toBe('a');
  });

  it('is full by count, or when the store refused the last keep (bytes) until something leaves', () => {
    const census = censusOf({ a: 2 });
    expect(census.full(3)).toBe(false);
    expect(census.full(2)).toBe(true);
    census.kept(false);
    expect(census.full(3)).toBe(true);
    const [first] = census.idsOf('a');
    census.remove(first!, 'a');
    expect(census.full(3)).toBe(false);
    expect(census.count).toBe(1);
  });

  it('finds the copies of one delivery from one token, for a retry to replace', () => {
    const census = new KeptCensus();
    census.add(keptId(T0, 'delivery-1'), 'token');
    census.add(keptId(T0, 'delivery-2'), 'token');
    census.add(keptId(T0, 'delivery-1'), 'another-token');
    expect(census.copiesOf('token', 'delivery-1')).toHaveLength(1);
    expect(census.copiesOf('nobody', 'delivery-1')).toEqual([]);
  });
});
