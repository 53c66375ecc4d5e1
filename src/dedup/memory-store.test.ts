import { describe, expect, it } from 'vitest';
import { memoryDedupStore } from './memory-store.js';
import type { DedupClaim } from './store.js';

const claimFor = (
  deliveryId: string | null,
  signature = `${deliveryId ?? 'none'}`.padEnd(64, '0'),
  signatureTtlMs = 300_000,
): DedupClaim => ({
  deliveryId,
  signature,
  signatureTtlMs,
});

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}

describe('memoryDedupStore', () => {
  it('claims a new delivery once; a second claim sees it in progress', () => {
    const store = memoryDedupStore();
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
    expect(store.claim(claimFor('a', 'f'.repeat(64)))).toEqual({ state: 'in-progress', matchedBy: 'delivery-id' });
  });

  it('answers done with the stored response after complete', async () => {
    const store = memoryDedupStore();
    const first = (await store.claim(claimFor('a'))) as { lease: string };
    await store.complete(claimFor('a'), first.lease, { ok: true, published_url: 'https://x/a' });
    expect(await store.claim(claimFor('a', 'e'.repeat(64)))).toEqual({
      state: 'done',
      matchedBy: 'delivery-id',
      response: { ok: true, published_url: 'https://x/a' },
    });
  });

  it('frees the delivery on release so a retry can claim it', async () => {
    const store = memoryDedupStore();
    const first = (await store.claim(claimFor('a'))) as { lease: string };
    await store.release(claimFor('a'), first.lease);
    expect(await store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
  });

  it('lets a claim expire after leaseMs, so a crashed handler does not block retries', () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    store.claim(claimFor('a'));
    time.advance(999);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'in-progress' });
    time.advance(1);
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'claimed' });
  });

  it('ignores complete and release from a lease that was lost to another claim', async () => {
    const time = clock();
    const store = memoryDedupStore({ leaseMs: 1000, now: time.now });
    const stale = store.claim(claimFor('a')) as { lease: string };
    time.advance(1000);
    const fresh = store.claim(claimFor('a')) as { lease: string };
    expect(fresh.lease).not.toBe(stale.lease);
    await store.release(claimFor('a'), stale.lease);
    await store.complete(claimFor('a'), stale.lease, { ok: true, published_url: 'stale' });
    expect(store.claim(claimFor('a'))).toEqual({ state: 'in-progress', matchedBy: 'delivery-id' });
    await store.complete(claimFor('a'), fresh.lease, { ok: true });
    expect(store.claim(claimFor('a'))).toMatchObject({ state: 'done', response: { ok: true } });
  });

  it('keeps a done delivery id for retentionMs, then forgets it', async () => {
    const time = clock();
    const store = memoryDedupStore({ retentionMs: 10_000, now: time.now });
    const first = store.claim(claimFor('a', 'a'.repeat(64), 1000)) as { lease: string };
    await store.complete(claimFor('a', 'a'.repeat(64), 1000), first.lease, { ok: true });
    time.advance(9_999);
    expect(store.claim(claimFor('a', 'b'.repeat(64)))).toMatchObject({ state: 'done' });
    time.advance(1);
    expect(store.claim(claimFor('a', 'b'.repeat(64)))).toMatchObject({ state: 'claimed' });
  });

  it('defaults to a 72 h retention', async () => {
    const time = clock();
    const store = memoryDedupStore({ now: time.now });
    const first = store.claim(claimFor('a')) as { lease: string };
    await store.complete(claimFor('a'), first.lease, { ok: true });
    time.advance(72 * 3600_000 - 1);
    expect(store.claim(claimFor('a', 'b'.repeat(64)))).toMatchObject({ state: 'done' });
    time.advance(1);
    expect(store.claim(claimFor('a', 'b'.repeat(64)))).toMatchObject({ state: 'claimed' });
  });

  it('recognises a replayed signature under a new delivery id until the signature leaves its window', async () => {
    const time = clock();
    const store = memoryDedupStore({ now: time.now });
    const original = claimFor('a', 'c'.repeat(64), 5000);
    const replay = claimFor('b', 'c'.repeat(64), 5000);
    const first = store.claim(original) as { lease: string };
    expect(store.claim(replay)).toEqual({ state: 'in-progress', matchedBy: 'signature' });
    await store.complete(original, first.lease, { ok: true });
    expect(store.claim(replay)).toMatchObject({ state: 'done', matchedBy: 'signature' });
    time.advance(5000);
    expect(store.claim(replay)).toMatchObject({ state: 'claimed' });
  });

  it('dedups deliveries without an id by signature alone', async () => {
    const store = memoryDedupStore();
    const first = store.claim(claimFor(null, 'd'.repeat(64))) as { lease: string };
    await store.complete(claimFor(null, 'd'.repeat(64)), first.lease, { ok: true });
    expect(store.claim(claimFor(null, 'd'.repeat(64)))).toMatchObject({ state: 'done', matchedBy: 'signature' });
    expect(store.claim(claimFor(null, 'e'.repeat(64)))).toMatchObject({ state: 'claimed' });
  });

  it('stays within maxEntries by forgetting the oldest entries first', async () => {
    const store = memoryDedupStore({ maxEntries: 4 });
    for (const id of ['a', 'b', 'c']) {
      const claim = claimFor(id, id.repeat(64));
      await store.complete(claim, (store.claim(claim) as { lease: string }).lease, { ok: true });
    }
    // Six keys were written (an id and a signature per delivery); the four newest, b's and c's, remain.
    expect(store.claim(claimFor('a', 'z'.repeat(64)))).toMatchObject({ state: 'claimed' });
    expect(store.claim(claimFor('c', 'y'.repeat(64)))).toMatchObject({ state: 'done' });
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
  it('never forgets a claim whose handler still runs, so a copy cannot run it again', async () => {
    const store = memoryDedupStore({ maxEntries: 4 });
    const running = claimFor('a', 'a'.repeat(64));
    expect(store.claim(running)).toMatchObject({ state: 'claimed' });
    for (const id of ['b', 'c', 'd', 'e']) {
      const claim = claimFor(id, id.repeat(64));
      await store.complete(claim, (store.claim(claim) as { lease: string }).lease, { ok: true });
    }
    expect(store.claim(claimFor('a', 'f'.repeat(64)))).toEqual({ state: 'in-progress', matchedBy: 'delivery-id' });
  });
});
