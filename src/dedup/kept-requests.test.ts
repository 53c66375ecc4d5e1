import { describe, expect, it } from 'vitest';
import { type KeptRequest, keptSize, memoryKeptRequests } from './kept-requests.js';

function clock(start = 0) {
  let at = start;
  return { now: () => at, set: (ms: number) => void (at = ms) };
}

const HASH = 'a'.repeat(64);

/** A request of `body` base64 characters and one header, so its size is easy to add up. */
function request(id: string, body = 'AAAA', headers: Record<string, string> = { 'x-service-event': 'test' }) {
  return { id, tokenSha256: HASH, headers, body, receivedAt: 0 } satisfies KeptRequest;
}

const roomy = { maxCount: 100, maxBytes: 1_000_000, until: 1_000 };

describe('memoryKeptRequests', () => {
  it('counts the body, the token hash and every header name and value as a request size', () => {
    // 4 + 64 + (15 + 4) + (21 + 2)
    expect(keptSize(request('r', 'AAAA', { 'x-service-event': 'test', 'x-service-delivery-id': 'd1' }))).toBe(110);
    expect(keptSize(request('r', '', {}))).toBe(64);
  });

  it('lists what it keeps by id and token hash only, and takes each request once', async () => {
    const store = memoryKeptRequests(clock().now);
    const kept = request('r1');
    expect(await store.keep(kept, roomy)).toBe(true);
    expect(await store.keep(request('r2'), roomy)).toBe(true);
    expect(await store.list()).toEqual([
      { id: 'r1', tokenSha256: HASH },
      { id: 'r2', tokenSha256: HASH },
    ]);
    expect(await store.take('r1')).toBe(kept);
    expect(await store.take('r1')).toBeUndefined();
    expect(await store.take('never-kept')).toBeUndefined();
    expect(await store.list()).toEqual([{ id: 'r2', tokenSha256: HASH }]);
  });

  it('keeps up to maxCount requests, and room comes back as they are taken', async () => {
    const store = memoryKeptRequests(clock().now);
    const limits = { ...roomy, maxCount: 2 };
    expect(await store.keep(request('r1'), limits)).toBe(true);
    expect(await store.keep(request('r2'), limits)).toBe(true);
    expect(await store.keep(request('r3'), limits)).toBe(false);
    expect((await store.list()).map(({ id }) => id)).toEqual(['r1', 'r2']);
    await store.take('r1');
    expect(await store.keep(request('r3'), limits)).toBe(true);
  });

  it('keeps up to exactly maxBytes, and a taken request gives its bytes back', async () => {
    const store = memoryKeptRequests(clock().now);
    const size = keptSize(request('r1'));
    const limits = { ...roomy, maxBytes: 2 * size };
    expect(await store.keep(request('r1'), limits)).toBe(true);
    expect(await store.keep(request('r2'), limits)).toBe(true);
    // Full: even a smaller request does not fit.
    expect(await store.keep(request('r3', 'A'), limits)).toBe(false);
    await store.take('r2');
    // One byte more than is left, then exactly what is left.
    expect(await store.keep(request('r3', 'AAAAA'), limits)).toBe(false);
    expect(await store.keep(request('r3'), limits)).toBe(true);
  });

  it('drops a request when its time is up, gives its bytes back, and counts it at the next clear', async () => {
    const time = clock();
    const store = memoryKeptRequests(time.now);
    const size = keptSize(request('r1'));
    expect(await store.keep(request('r1'), { ...roomy, maxBytes: size, until: 100 })).toBe(true);
    time.set(99);
    expect((await store.list()).map(({ id }) => id)).toEqual(['r1']);
    time.set(100);
    expect(await store.list()).toEqual([]);
    expect(await store.take('r1')).toBeUndefined();
    // Its bytes are free again for a request that keeps longer.
    expect(await store.keep(request('r2'), { ...roomy, maxBytes: size, until: 200 })).toBe(true);
    expect(await store.clear()).toBe(2);
    expect(await store.clear()).toBe(0);
  });

  it('drops expired requests before it checks the bounds of a new one', async () => {
    const time = clock();
    const store = memoryKeptRequests(time.now);
    expect(await store.keep(request('r1'), { ...roomy, maxCount: 1, until: 50 })).toBe(true);
    time.set(50);
    expect(await store.keep(request('r2'), { ...roomy, maxCount: 1, until: 100 })).toBe(true);
    expect((await store.list()).map(({ id }) => id)).toEqual(['r2']);
  });

  it('starts again from empty after a clear: no count and no bytes left over', async () => {
    const store = memoryKeptRequests(clock().now);
    const size = keptSize(request('r1'));
    const limits = { ...roomy, maxBytes: size };
    expect(await store.keep(request('r1'), limits)).toBe(true);
    expect(await store.clear()).toBe(1);
    expect(await store.list()).toEqual([]);
    expect(await store.keep(request('r2'), limits)).toBe(true);
    expect(await store.clear()).toBe(1);
  });

  it('reads the clock it was given, not the wall clock', async () => {
    const time = clock(5_000);
    const store = memoryKeptRequests(time.now);
    expect(await store.keep(request('r1'), { ...roomy, until: 4_000 })).toBe(true);
    expect(await store.list()).toEqual([]);
  });
});
