import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DedupClaim, DedupStore } from 'webhook-cms-receiver';
import { redisDedupStore, type RedisClientLike } from 'webhook-cms-receiver/redis';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

const claimOf = (overrides: Partial<DedupClaim> = {}): DedupClaim => ({
  deliveryId: randomUUID(),
  signature: randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', ''),
  signatureTtlMs: 240_000,
  ...overrides,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithRedis('redisDedupStore on a real Redis', () => {
  describe.each(clientNames)('with the %s client', (name) => {
    let redis: TestClient;
    let prefix: string;
    let store: DedupStore;
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis?.close());
    const freshStore = (options: { leaseMs?: number; retentionMs?: number } = {}) => {
      prefix = freshPrefix();
      store = redisDedupStore(redis.client, { keyPrefix: prefix, ...options });
      return store;
    };

    it('claims a new delivery, then answers in-progress to a second claim of the same id', async () => {
      freshStore();
      const claim = claimOf();
      expect(await store.claim(claim)).toEqual({ state: 'claimed', lease: expect.any(String) });
      expect(await store.claim({ ...claim, signature: claimOf().signature })).toEqual({
        state: 'in-progress',
        matchedBy: 'delivery-id',
      });
    });

    it('answers done with the stored response after complete, matched by id and by signature', async () => {
      freshStore();
      const claim = claimOf();
      const first = await store.claim(claim);
      if (first.state !== 'claimed') throw new Error('expected a claim');
      await store.complete(claim, first.lease, { ok: true, published_url: 'https://blog.example.com/a' });
      const response = { ok: true, published_url: 'https://blog.example.com/a' };
      expect(await store.claim(claim)).toEqual({ state: 'done', matchedBy: 'delivery-id', response });
      expect(await store.claim({ ...claim, deliveryId: randomUUID() })).toEqual({
        state: 'done',
        matchedBy: 'signature',
        response,
      });
      expect(await store.claim({ ...claim, deliveryId: null })).toEqual({
        state: 'done',
        matchedBy: 'signature',
        response,
      });
    });

    it('catches a replay of the same signature under a new delivery id while the first is in flight', async () => {
      freshStore();
      const claim = claimOf();
      await store.claim(claim);
      expect(await store.claim({ ...claim, deliveryId: randomUUID() })).toEqual({
        state: 'in-progress',
        matchedBy: 'signature',
      });
    });

    it('frees the delivery on release so the retry claims it again', async () => {
      freshStore();
      const claim = claimOf();
      const first = await store.claim(claim);
      if (first.state !== 'claimed') throw new Error('expected a claim');
      await store.release(claim, first.lease);
      expect(await store.claim(claim)).toEqual({ state: 'claimed', lease: expect.any(String) });
    });

    it('gives every claim a different lease', async () => {
      freshStore();
      const leases = await Promise.all(
        [1, 2, 3].map(async () => ((await store.claim(claimOf())) as { lease: string }).lease),
      );
      expect(new Set(leases).size).toBe(3);
    });

    it('lets exactly one of 50 concurrent claims of the same delivery win', async () => {
      freshStore();
      const claim = claimOf();
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.claim(claim)));
      expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.state === 'in-progress')).toHaveLength(49);
    });

    it('frees a claim whose lease ran out, so a crashed handler does not block the delivery', async () => {
      freshStore({ leaseMs: 150 });
      const claim = claimOf();
      await store.claim(claim);
      await sleep(300);
      expect((await store.claim(claim)).state).toBe('claimed');
    });

    it('does not let a lost lease complete over, or release, the claim another process took since', async () => {
      freshStore({ leaseMs: 150 });
      const other = redisDedupStore(redis.client, { keyPrefix: prefix, leaseMs: 60_000 });
      const claim = claimOf();
      const stale = await store.claim(claim);
      await sleep(300);
      const current = await other.claim(claim);
      if (stale.state !== 'claimed' || current.state !== 'claimed') throw new Error('expected both to claim in turn');
      await store.complete(claim, stale.lease, { ok: true, published_url: 'https://stale.example.com/' });
      await store.release(claim, stale.lease);
      expect(await other.claim(claim)).toEqual({ state: 'in-progress', matchedBy: 'delivery-id' });
      await other.complete(claim, current.lease, { ok: true, published_url: 'https://current.example.com/' });
      expect(await store.claim(claim)).toEqual({
        state: 'done',
        matchedBy: 'delivery-id',
        response: { ok: true, published_url: 'https://current.example.com/' },
      });
    });

    it('keeps the delivery id for retentionMs and the signature for the rest of its tolerance window', async () => {
      freshStore({ retentionMs: 3_600_000 });
      const claim = claimOf({ signatureTtlMs: 120_000 });
      const first = await store.claim(claim);
      if (first.state !== 'claimed') throw new Error('expected a claim');
      await store.complete(claim, first.lease, { ok: true });
      const idTtl = Number(await redis.command(['PTTL', `${prefix}id:${claim.deliveryId}`]));
      const signatureTtl = Number(await redis.command(['PTTL', `${prefix}sig:${claim.signature.slice(0, 32)}`]));
      expect(idTtl).toBeGreaterThan(3_000_000);
      expect(idTtl).toBeLessThanOrEqual(3_600_000);
      expect(signatureTtl).toBeGreaterThan(60_000);
      expect(signatureTtl).toBeLessThanOrEqual(120_000);
    });

    it('keeps a claim for a delivery without an id by its signature alone', async () => {
      freshStore();
      const claim = claimOf({ deliveryId: null });
      expect((await store.claim(claim)).state).toBe('claimed');
      expect(await store.claim(claim)).toEqual({ state: 'in-progress', matchedBy: 'signature' });
    });

    it('takes two round trips on the happy path: one claim, one complete', async () => {
      const calls: string[] = [];
      const counted = new Proxy(redis.client as object, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (/^eval/i.test(String(property))) calls.push(String(property));
            return value.apply(target, args);
          };
        },
      }) as RedisClientLike;
      const counting = redisDedupStore(counted, { keyPrefix: freshPrefix() });
      const warm = claimOf();
      await counting.claim(warm); // loads the script if this Redis has not seen it yet
      const lease = ((await counting.claim(claimOf())) as { lease: string }).lease; // warm complete too
      await counting.complete(warm, lease, { ok: true });
      calls.length = 0;
      const claim = claimOf();
      const outcome = await counting.claim(claim);
      await counting.complete(claim, (outcome as { lease: string }).lease, { ok: true });
      expect(calls).toHaveLength(2);
    });

    it('reloads its scripts after Redis forgot them (SCRIPT FLUSH, restart)', async () => {
      freshStore();
      await store.claim(claimOf());
      await redis.command(['SCRIPT', 'FLUSH']);
      const claim = claimOf();
      expect((await store.claim(claim)).state).toBe('claimed');
      expect((await store.claim(claim)).state).toBe('in-progress');
    });
  });

  it('refuses at construction a client that is neither node-redis nor ioredis, naming both', () => {
    expect(() => redisDedupStore({ get() {} } as unknown as RedisClientLike)).toThrow(/node-redis v4\+.*ioredis v5/);
  });

  it('refuses a lease that is not a positive number', async () => {
    const redis = await connect('redis');
    try {
      expect(() => redisDedupStore(redis.client, { leaseMs: 0 })).toThrow(/leaseMs must be a positive number/);
    } finally {
      await redis.close();
    }
  });
});
