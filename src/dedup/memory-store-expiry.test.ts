import { describe, expect, it } from 'vitest';
import { memoryDedupStore } from './memory-store.js';
import { type ClaimOutcome, okAnswer } from './store.js';

function clock(start = 0) {
  let at = start;
  return { now: () => at, set: (ms: number) => void (at = ms) };
}

const settled = (outcome: ClaimOutcome | Promise<ClaimOutcome>) => outcome as ClaimOutcome & { warning?: Error };
const leaseOf = (outcome: ClaimOutcome | Promise<ClaimOutcome>) => {
  const claim = settled(outcome);
  if (claim.state !== 'claimed') throw new Error(`expected a claim, got ${claim.state}`);
  return claim.lease;
};

describe('memoryDedupStore: expiry and eviction, exactly', () => {
  it('lets a lapsed claim be taken exactly at the end of its lease, even when it is not the oldest id', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 100, retentionMs: 10_000, now: time.now });
    store.complete({ deliveryId: 'older' }, leaseOf(store.claim({ deliveryId: 'older' })), okAnswer());
    leaseOf(store.claim({ deliveryId: 'running' }));
    time.set(99);
    expect(settled(store.claim({ deliveryId: 'running' })).state).toBe('in-progress');
    time.set(100);
    expect(settled(store.claim({ deliveryId: 'running' })).state).toBe('claimed');
  });

  it('counts only ids still inside their retention in its eviction warning', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 200, maxEntries: 1, now: time.now });
    leaseOf(store.claim({ deliveryId: 'lapsed' })); // lease ends at 200
    time.set(200);
    // A completion whose claim lapsed adds its id without a sweep: the lapsed id is evicted, uncounted.
    store.complete({ deliveryId: 'late' }, '99', okAnswer());
    const next = settled(store.claim({ deliveryId: 'next' }));
    expect(next.warning?.message).toMatch(/^memoryDedupStore dropped 1 delivery id\(s\) still inside their retention/);
  });

  it('keeps its bound when a completion arrives after its claim lapsed and was forgotten', () => {
    const store = memoryDedupStore({ maxEntries: 1 });
    store.complete({ deliveryId: 'first' }, '1', okAnswer());
    store.complete({ deliveryId: 'second' }, '2', okAnswer());
    expect(settled(store.claim({ deliveryId: 'second' })).state).toBe('done');
    expect(settled(store.claim({ deliveryId: 'first' })).state).toBe('claimed');
  });

  it('lets the map overflow rather than forget claims whose handlers still run', () => {
    const store = memoryDedupStore({ maxEntries: 2 });
    const ids = Array.from({ length: 12 }, (_, i) => `running-${i}`);
    for (const id of ids) leaseOf(store.claim({ deliveryId: id }));
    for (const id of ids) expect(settled(store.claim({ deliveryId: id })).state).toBe('in-progress');
  });

  it('releases only the claim of the lease it is given, and never a done delivery', () => {
    const store = memoryDedupStore();
    const lease = leaseOf(store.claim({ deliveryId: 'a' }));
    store.release({ deliveryId: 'a' }, 'another');
    expect(settled(store.claim({ deliveryId: 'a' })).state).toBe('in-progress');
    store.complete({ deliveryId: 'a' }, lease, okAnswer('https://x/a'));
    store.release({ deliveryId: 'a' }, lease);
    expect(settled(store.claim({ deliveryId: 'a' }))).toEqual({
      state: 'done',
      answer: { ok: true, published_url: 'https://x/a' },
    });
  });
});

describe('okAnswer', () => {
  it('shares one plain answer without a url key, and makes one with the url', () => {
    expect(okAnswer()).toBe(okAnswer());
    expect(Object.keys(okAnswer())).toEqual(['ok']);
    expect(okAnswer('https://x/y')).toStrictEqual({ ok: true, published_url: 'https://x/y' });
  });
});
