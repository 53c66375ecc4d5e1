import { describe, expect, it } from 'vitest';
import { HashCache, type TenantEntry, UNKNOWN_MS } from './tenant-cache.js';

const entry = (expiresAt = 0): TenantEntry => ({ expiresAt, keys: [], matches: [] });

describe('HashCache: found tenants and unknown hashes', () => {
  it('keeps a found entry until it is forgotten, and an unknown hash for exactly UNKNOWN_MS', () => {
    const cache = new HashCache();
    const found = entry();
    cache.remember('h1', found);
    expect(cache.known('h1')).toBe(found);
    expect(cache.isUnknown('h1', 0)).toBe(false);

    cache.forget('h1', 5_000);
    expect(cache.known('h1')).toBeUndefined();
    expect(cache.isUnknown('h1', 5_000)).toBe(true);
    expect(cache.isUnknown('h1', 5_000 + UNKNOWN_MS - 1)).toBe(true);
    expect(cache.isUnknown('h1', 5_000 + UNKNOWN_MS)).toBe(false);
    // Expired, it is dropped: an earlier time does not bring it back.
    expect(cache.isUnknown('h1', 5_000)).toBe(false);
    expect(UNKNOWN_MS).toBe(1000);
  });

  it('finds a hash again once remembered, no longer unknown', () => {
    const cache = new HashCache();
    cache.forget('h2', 0);
    const found = entry();
    cache.remember('h2', found);
    expect(cache.isUnknown('h2', 0)).toBe(false);
    expect(cache.known('h2')).toBe(found);
  });

  it('drops the least recently found entry past 100 000, never a just-remembered one', () => {
    const cache = new HashCache();
    for (let i = 0; i < 100_000; i++) cache.remember(`k${i}`, entry());
    // Found again: it moves to the back, so k1 is the oldest now.
    cache.remember('k0', entry(1));
    cache.remember('new', entry());
    expect(cache.known('k0')?.expiresAt).toBe(1);
    expect(cache.known('k1')).toBeUndefined();
    expect(cache.known('k2')).toBeDefined();
    expect(cache.known('new')).toBeDefined();
    expect(cache.known('k99999')).toBeDefined();
  });

  it('sweeps expired unknown hashes past 10 000, then the oldest, keeping the newest', () => {
    const cache = new HashCache();
    for (let i = 0; i < 5_000; i++) cache.forget(`old${i}`, 0);
    for (let i = 0; i < 5_000; i++) cache.forget(`live${i}`, 10_000);
    // 10 001 entries: the 5 000 that expired at 1 000 go; the live ones stay.
    cache.forget('one-more', 10_000);
    expect(cache.isUnknown('old0', 10_000)).toBe(false);
    expect(cache.isUnknown('live0', 10_000)).toBe(true);
    expect(cache.isUnknown('live4999', 10_000)).toBe(true);
    expect(cache.isUnknown('one-more', 10_000)).toBe(true);

    // All live: past 10 000 the oldest are dropped, down to 10 000.
    const full = new HashCache();
    for (let i = 0; i < 10_000; i++) full.forget(`u${i}`, 0);
    full.forget('latest', 0);
    expect(full.isUnknown('u0', 0)).toBe(false);
    expect(full.isUnknown('u1', 0)).toBe(true);
    expect(full.isUnknown('latest', 0)).toBe(true);
  });
});
