import { describe, expect, it } from 'vitest';
import { memoryDedupStore } from './memory-store.js';
import type { ClaimOutcome, DedupClaim } from './store.js';

const claimFor = (deliveryId: string, order?: DedupClaim['order']): DedupClaim =>
  order ? { deliveryId, order } : { deliveryId };

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

function leaseOf(outcome: ClaimOutcome | Promise<ClaimOutcome>): string {
  const settled = outcome as ClaimOutcome;
  if (settled.state !== 'claimed') throw new Error(`expected a claim, got ${settled.state}`);
  return settled.lease;
}

describe('memoryDedupStore (the synchronous parts a shared store suite cannot see)', () => {
  it('claims, completes and answers done synchronously, with no promise', () => {
    const store = memoryDedupStore();
    const lease = leaseOf(store.claim(claimFor('a')));
    expect(store.claim(claimFor('a'))).toEqual({ state: 'in-progress' });
    expect(store.complete(claimFor('a'), lease, { ok: true, published_url: 'https://x/a' })).toBe(true);
    expect(store.claim(claimFor('a'))).toEqual({ state: 'done', answer: { ok: true, published_url: 'https://x/a' } });
  });

  it('renews a lease past leaseMs, and a crashed (unrenewed) claim frees after one lease', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const lease = leaseOf(store.claim(claimFor('a')));
    time.advance(900);
    expect(store.renew!(claimFor('a'), lease)).toBe(true);
    time.advance(900);
    expect(store.claim(claimFor('a'))).toEqual({ state: 'in-progress' });
    time.advance(1000);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
  });

  it('records a lapsed lease when nobody took the id over, and refuses one that was taken over', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const lapsed = leaseOf(store.claim(claimFor('a')));
    time.advance(1500);
    expect(store.complete(claimFor('a'), lapsed, { ok: true })).toBe(true);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'done' });

    const stale = leaseOf(store.claim(claimFor('b')));
    time.advance(1500);
    const fresh = leaseOf(store.claim(claimFor('b')));
    expect(store.renew!(claimFor('b'), stale)).toBe(false);
    expect(store.complete(claimFor('b'), stale, { ok: true, published_url: 'stale' })).toBe(false);
    store.release(claimFor('b'), stale);
    expect(store.claim(claimFor('b'))).toEqual({ state: 'in-progress' });
    expect(store.complete(claimFor('b'), fresh, { ok: true })).toBe(true);
  });

  it('keeps a done id for retentionMs (72 h by default), then forgets it', () => {
    const time = clock();
    const store = memoryDedupStore({ now: time.now });
    store.complete(claimFor('a'), leaseOf(store.claim(claimFor('a'))), { ok: true });
    time.advance(72 * 3600_000 - 1);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'done' });
    time.advance(1);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
  });

  it.each([
    ['leaseMs', { leaseMs: 0 }],
    ['retentionMs', { retentionMs: -1 }],
    ['maxEntries', { maxEntries: Number.NaN }],
  ])('refuses a non-positive %s with an error naming the option', (name, options) => {
    expect(() => memoryDedupStore(options)).toThrow(new RegExp(`memoryDedupStore: ${name} must be a positive number`));
  });
});

describe('memoryDedupStore at its bound', () => {
  it('forgets the oldest ids first, and says so once per burst through the next claim', () => {
    const time = clock();
    const store = memoryDedupStore({ maxEntries: 3, now: time.now });
    const warnings: Error[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      const outcome = store.claim(claimFor(id)) as ClaimOutcome & { warning?: Error };
      if (outcome.warning) warnings.push(outcome.warning);
      store.complete(claimFor(id), leaseOf(outcome), { ok: true });
    }
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
    expect(store.claim(claimFor('e'))).toMatchObject({ state: 'done' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/dropped 1 delivery id\(s\) still inside their retention.*maxEntries=3/);
    time.advance(61_000);
    const later = store.claim(claimFor('f')) as ClaimOutcome & { warning?: Error };
    expect(later.warning?.message).toMatch(/dropped \d+ delivery id/);
  });

  it('never forgets a claim whose handler still runs, so a copy cannot run it again', () => {
    const store = memoryDedupStore({ maxEntries: 4 });
    leaseOf(store.claim(claimFor('a')));
    for (const id of ['b', 'c', 'd', 'e'])
      store.complete(claimFor(id), leaseOf(store.claim(claimFor(id))), { ok: true });
    expect(store.claim(claimFor('a'))).toEqual({ state: 'in-progress' });
  });

  it('does not count ids that expired anyway as dropped', () => {
    const time = clock();
    const store = memoryDedupStore({ maxEntries: 2, retentionMs: 1000, now: time.now });
    for (const id of ['a', 'b']) store.complete(claimFor(id), leaseOf(store.claim(claimFor(id))), { ok: true });
    time.advance(1000);
    const outcome = store.claim(claimFor('c')) as ClaimOutcome & { warning?: Error };
    expect(outcome.warning).toBeUndefined();
  });
});

describe('memoryDedupStore ordering', () => {
  const order = (timestamp: number) => ({ articleId: 'art-1', timestamp });

  it('answers stale for an older article delivery and records it done as stale', () => {
    const store = memoryDedupStore();
    store.complete(claimFor('trash', order(200)), leaseOf(store.claim(claimFor('trash', order(200)))), { ok: true });
    expect(store.claim(claimFor('late-sync', order(100)))).toEqual({ state: 'stale', newerTimestamp: 200 });
    expect(store.claim(claimFor('late-sync', order(100)))).toEqual({
      state: 'done',
      answer: { ok: true, stale: true },
    });
    expect(store.claim(claimFor('same-second', order(200)))).toMatchObject({ state: 'claimed' });
  });

  it('lets one delivery per article run at a time, and the next in once it is done or failed', () => {
    const store = memoryDedupStore();
    const first = leaseOf(store.claim(claimFor('one', order(100))));
    expect(store.claim(claimFor('two', order(150)))).toEqual({ state: 'in-progress' });
    store.release(claimFor('one', order(100)), first);
    const second = leaseOf(store.claim(claimFor('two', order(150))));
    expect(store.claim(claimFor('three', order(160)))).toEqual({ state: 'in-progress' });
    store.complete(claimFor('two', order(150)), second, { ok: true });
    expect(store.claim(claimFor('one', order(100)))).toEqual({ state: 'stale', newerTimestamp: 150 });
    expect(store.claim(claimFor('three', order(160)))).toMatchObject({ state: 'claimed' });
  });

  it('keeps the article held while its lease is renewed', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const lease = leaseOf(store.claim(claimFor('one', order(100))));
    time.advance(900);
    expect(store.renew!(claimFor('one', order(100)), lease)).toBe(true);
    time.advance(900);
    expect(store.claim(claimFor('two', order(150)))).toEqual({ state: 'in-progress' });
  });
});
