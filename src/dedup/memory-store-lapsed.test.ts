import { describe, expect, it } from 'vitest';
import { memoryDedupStore } from './memory-store.js';
import type { ClaimOutcome, DedupClaim } from './store.js';

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

function leaseOf(outcome: ClaimOutcome | Promise<ClaimOutcome>): string {
  const settled = outcome as ClaimOutcome;
  if (settled.state !== 'claimed') throw new Error(`expected a claim, got ${settled.state}`);
  return settled.lease;
}

const order = (timestamp: number) => ({ articleId: 'article-1', timestamp });

describe('memoryDedupStore renewing a lease that lapsed', () => {
  it('holds the id again when nobody took it over, for one more lease', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const claim: DedupClaim = { deliveryId: 'lapsed' };
    const lease = leaseOf(store.claim(claim));
    time.advance(1500);
    expect(store.renew!(claim, lease)).toBe(true);
    // Held again: a copy now finds it in progress, for up to one lease from the renewal.
    expect(store.claim(claim)).toEqual({ state: 'in-progress' });
    time.advance(999);
    expect(store.claim(claim)).toEqual({ state: 'in-progress' });
    // Held by this lease: renewing and completing with it still work.
    expect(store.renew!(claim, lease)).toBe(true);
    expect(store.complete(claim, lease, { ok: true, published_url: 'https://x/late' })).toBe(true);
    expect(store.claim(claim)).toEqual({ state: 'done', answer: { ok: true, published_url: 'https://x/late' } });
  });

  it('frees the re-held id one lease after the renewal if the handler then crashes', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const claim: DedupClaim = { deliveryId: 'lapsed-then-crashed' };
    const lease = leaseOf(store.claim(claim));
    time.advance(1500);
    expect(store.renew!(claim, lease)).toBe(true);
    time.advance(1000);
    const next = store.claim(claim) as ClaimOutcome;
    expect(next.state).toBe('claimed');
    expect(store.renew!(claim, lease)).toBe(false);
  });

  it('refuses to renew a lease whose id is done, or held by another lease', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const claim: DedupClaim = { deliveryId: 'done' };
    const lease = leaseOf(store.claim(claim));
    store.complete(claim, lease, { ok: true, published_url: 'https://x/done' });
    expect(store.renew!(claim, lease)).toBe(false);
    const plain: DedupClaim = { deliveryId: 'plain-done' };
    const plainLease = leaseOf(store.claim(plain));
    store.complete(plain, plainLease, { ok: true });
    expect(store.renew!(plain, plainLease)).toBe(false);
    expect(store.claim(plain)).toEqual({ state: 'done', answer: { ok: true } });
  });

  it('holds a lapsed article lease again when no other delivery took the article', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const first: DedupClaim = { deliveryId: 'first', order: order(100) };
    const lease = leaseOf(store.claim(first));
    time.advance(1500);
    expect(store.renew!(first, lease)).toBe(true);
    expect(store.claim({ deliveryId: 'second', order: order(101) })).toEqual({ state: 'in-progress' });
    expect(store.complete(first, lease, { ok: true })).toBe(true);
    expect(store.claim({ deliveryId: 'older', order: order(99) })).toEqual({ state: 'stale', newerTimestamp: 100 });
  });

  it('refuses to renew an article lease another delivery holds now', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const first: DedupClaim = { deliveryId: 'first', order: order(100) };
    const lease = leaseOf(store.claim(first));
    time.advance(1500);
    leaseOf(store.claim({ deliveryId: 'second', order: order(101) }));
    expect(store.renew!(first, lease)).toBe(false);
  });
});
