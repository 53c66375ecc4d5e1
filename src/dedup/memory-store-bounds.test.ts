import { describe, expect, it } from 'vitest';
import { memoryDedupStore } from './memory-store.js';
import type { ClaimOutcome, DedupClaim } from './store.js';

const claimFor = (deliveryId: string): DedupClaim => ({ deliveryId });

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

function leaseOf(outcome: ClaimOutcome | Promise<ClaimOutcome>): string {
  const settled = outcome as ClaimOutcome;
  if (settled.state !== 'claimed') throw new Error(`expected a claim, got ${settled.state}`);
  return settled.lease;
}

/** Claims and completes each id; returns the warnings the claims carried. */
function handle(store: ReturnType<typeof memoryDedupStore>, ids: string[]): Error[] {
  const warnings: Error[] = [];
  for (const id of ids) {
    const outcome = store.claim(claimFor(id)) as ClaimOutcome & { warning?: Error };
    if (outcome.warning) warnings.push(outcome.warning);
    store.complete(claimFor(id), leaseOf(outcome), { ok: true });
  }
  return warnings;
}

describe('memoryDedupStore at its bound, in detail', () => {
  it('rounds a fractional maxEntries down, and holds at least one id', () => {
    const store = memoryDedupStore({ maxEntries: 2.9 });
    handle(store, ['a', 'b', 'c']);
    expect(store.claim(claimFor('b'))).toMatchObject({ state: 'done' });
    expect(store.claim(claimFor('c'))).toMatchObject({ state: 'done' });
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });

    const tiny = memoryDedupStore({ maxEntries: 0.5 });
    handle(tiny, ['x']);
    expect(tiny.claim(claimFor('x'))).toMatchObject({ state: 'done' });
  });

  it('reports the first drop at once, then at most once per 60 s, counting every drop in between', () => {
    const time = clock();
    const store = memoryDedupStore({ maxEntries: 1, now: time.now });
    expect(handle(store, ['a'])).toEqual([]);
    const first = handle(store, ['b', 'c']);
    // A stable code, so onError can tell it from a failure; the message keeps the detail.
    expect(first.map((e) => (e as { code?: unknown }).code)).toEqual(['dedup_overflow']);
    expect(first.map((e) => e.message)).toEqual([
      'memoryDedupStore dropped 1 delivery id(s) still inside their retention: it holds at most maxEntries=1. ' +
        'A retry of a dropped delivery would run its handler again. Raise maxEntries, or use a shared store ' +
        '(webhook-cms-receiver/redis or /postgres).',
    ]);
    time.advance(59_999);
    expect(handle(store, ['d'])).toEqual([]);
    time.advance(1);
    const again = handle(store, ['e']);
    expect(again).toHaveLength(1);
    expect(again[0]).toHaveProperty('code', 'dedup_overflow');
    expect(again[0]!.message).toMatch(/^memoryDedupStore dropped 3 delivery id\(s\)/);
  });

  it('moves a running claim to the young end instead of dropping it, and drops the next oldest', () => {
    const store = memoryDedupStore({ maxEntries: 2 });
    const running = leaseOf(store.claim(claimFor('running')));
    handle(store, ['done-1', 'done-2']);
    expect(store.claim(claimFor('running'))).toEqual({ state: 'in-progress' });
    expect(store.claim(claimFor('done-2'))).toMatchObject({ state: 'done' });
    expect(store.complete(claimFor('running'), running, { ok: true })).toBe(true);
  });

  it('steps over eight running claims per add at most, so a done id right behind them stays until the next add', () => {
    const store = memoryDedupStore({ maxEntries: 9 });
    for (let i = 0; i < 8; i++) leaseOf(store.claim(claimFor(`running-${i}`)));
    handle(store, ['done']);
    // Over the bound by one: the eight running claims move to the young end and the search stops there.
    expect(store.claim(claimFor('new-1'))).not.toHaveProperty('warning');
    expect(store.claim(claimFor('done'))).toMatchObject({ state: 'done' });
    // The next claim finds the done id first and drops it, with a warning.
    expect(store.claim(claimFor('new-2'))).toHaveProperty('warning');
    expect(store.claim(claimFor('done'))).toMatchObject({ state: 'claimed' });
  });

  it('completes a claim in place while the map overflows, without evicting anything for it', () => {
    const store = memoryDedupStore({ maxEntries: 9 });
    for (let i = 0; i < 8; i++) leaseOf(store.claim(claimFor(`running-${i}`)));
    leaseOf(store.claim(claimFor('x')));
    // Over the bound by one, with the eight running claims moved behind x and y.
    const y = leaseOf(store.claim(claimFor('y')));
    expect(store.complete(claimFor('y'), y, { ok: true })).toBe(true);
    expect(store.claim(claimFor('y'))).toMatchObject({ state: 'done' });
    expect(store.claim(claimFor('x'))).toEqual({ state: 'in-progress' });
  });

  it('drops a claim whose lease ran out like any other id', () => {
    const time = clock();
    const store = memoryDedupStore({ maxEntries: 1, leaseMs: 100, now: time.now });
    leaseOf(store.claim(claimFor('crashed')));
    time.advance(100);
    handle(store, ['next']);
    expect(store.claim(claimFor('crashed'))).toMatchObject({ state: 'claimed' });
  });
});

describe('memoryDedupStore release and complete, in detail', () => {
  it('releases only the claim of the lease given, never a done id', () => {
    const store = memoryDedupStore();
    const lease = leaseOf(store.claim(claimFor('a')));
    store.release(claimFor('a'), String(Number(lease) + 1));
    expect(store.claim(claimFor('a'))).toEqual({ state: 'in-progress' });
    store.release(claimFor('a'), lease);
    const again = leaseOf(store.claim(claimFor('a')));
    store.complete(claimFor('a'), again, { ok: true, published_url: 'https://x/a' });
    store.release(claimFor('a'), again);
    expect(store.claim(claimFor('a'))).toEqual({ state: 'done', answer: { ok: true, published_url: 'https://x/a' } });
    handle(store, ['plain']);
    store.release(claimFor('plain'), '999');
    expect(store.claim(claimFor('plain'))).toEqual({ state: 'done', answer: { ok: true } });
  });

  it('refuses to complete a done id again, with its lease or another', () => {
    const store = memoryDedupStore();
    const lease = leaseOf(store.claim(claimFor('a')));
    expect(store.complete(claimFor('a'), lease, { ok: true, published_url: 'https://x/1' })).toBe(true);
    expect(store.complete(claimFor('a'), lease, { ok: true, published_url: 'https://x/2' })).toBe(false);
    handle(store, ['b']);
    expect(store.complete(claimFor('b'), '1', { ok: true })).toBe(false);
    expect(store.claim(claimFor('a'))).toEqual({ state: 'done', answer: { ok: true, published_url: 'https://x/1' } });
  });

  it('keeps an answer with more than ok (a URL, stale) whole, and a plain one as plain', () => {
    const store = memoryDedupStore();
    for (const [id, answer] of [
      ['url', { ok: true as const, published_url: 'https://x/u' }],
      ['stale', { ok: true as const, stale: true as const }],
      ['plain', { ok: true as const }],
    ] as const) {
      store.complete(claimFor(id), leaseOf(store.claim(claimFor(id))), answer);
      expect(store.claim(claimFor(id))).toEqual({ state: 'done', answer });
    }
  });

  it('keeps a done id until exactly its retention, and a claim until exactly its lease', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 100, retentionMs: 1000, now: time.now });
    leaseOf(store.claim(claimFor('claim')));
    time.advance(99);
    expect(store.claim(claimFor('claim'))).toEqual({ state: 'in-progress' });
    time.advance(1);
    expect(store.claim(claimFor('claim'))).toMatchObject({ state: 'claimed' });

    handle(store, ['done']);
    time.advance(999);
    expect(store.claim(claimFor('done'))).toMatchObject({ state: 'done' });
    time.advance(1);
    expect(store.claim(claimFor('done'))).toMatchObject({ state: 'claimed' });
  });

  it('gives each claim a lease of its own', () => {
    const store = memoryDedupStore();
    const leases = ['a', 'b', 'c'].map((id) => leaseOf(store.claim(claimFor(id))));
    expect(new Set(leases).size).toBe(3);
    expect(store.complete(claimFor('b'), leases[0]!, { ok: true })).toBe(false);
    expect(store.complete(claimFor('b'), leases[1]!, { ok: true })).toBe(true);
  });
});
