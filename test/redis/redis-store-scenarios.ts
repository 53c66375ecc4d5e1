import { randomUUID } from 'node:crypto';
import { Redis as IORedis } from 'ioredis';
import * as nodeRedis from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimOutcome, DedupClaim, DedupStore } from 'webhook-cms-receiver';
import { type RedisClientLike, redisDedupStore } from 'webhook-cms-receiver/redis';
import {
  clientNames,
  connect,
  countingScripts,
  describeWithRedis,
  freshPrefix,
  type TestClient,
} from './redis-clients.js';

const claimOf = (): DedupClaim => ({ deliveryId: randomUUID() });
const orderedClaimOf = (timestamp = 1_700_000_000): DedupClaim => ({
  deliveryId: randomUUID(),
  order: { articleId: randomUUID(), timestamp },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leaseOf = (outcome: ClaimOutcome): string => {
  if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(outcome)}`);
  return outcome.lease;
};

/**
 * The store on each client library, `redis` and `ioredis` as the test file resolves them
 * (redis-store.test.ts: the newest majors; redis-clients5.test.ts mocks them to the `redis5`
 * and `ioredis5` aliases, in the matrix). `majors` is checked against the clients.
 */
export function redisStoreScenarios(majors: { redis: number; ioredis: number }): void {
  describeWithRedis(
    `redisDedupStore on a real Redis (contract v2: one key per delivery id), redis ${majors.redis} and ioredis ${majors.ioredis}`,
    () => {
      it(`runs on redis ${majors.redis} and ioredis ${majors.ioredis}`, () => {
        // What only the newer majors have: node-redis 6 exports DEFAULT_RESP, ioredis 6 builds command contexts.
        expect('DEFAULT_RESP' in nodeRedis ? 6 : 5).toBe(majors.redis);
        expect('_buildCommandContext' in IORedis.prototype ? 6 : 5).toBe(majors.ioredis);
      });
      describe.each(clientNames)('with the %s client', (name) => {
        let redis: TestClient;
        let prefix: string;
        beforeAll(async () => {
          redis = await connect(name);
        });
        afterAll(() => redis?.close());
        const freshStore = (options: { leaseMs?: number; retentionMs?: number } = {}): DedupStore => {
          prefix = freshPrefix();
          return redisDedupStore(redis.client, { keyPrefix: prefix, ...options });
        };
        const keys = async () => ((await redis.command(['KEYS', `${prefix}*`])) as string[]).sort();

        it('claims a new delivery and answers in-progress to a second claim of the same id', async () => {
          const store = freshStore();
          const claim = claimOf();
          expect(await store.claim(claim)).toEqual({ state: 'claimed', lease: expect.any(String) });
          expect(await store.claim(claim)).toEqual({ state: 'in-progress' });
          expect(await store.claim(claimOf())).toEqual({ state: 'claimed', lease: expect.any(String) });
        });

        it('records the answer on complete, in one key per delivery, kept for retentionMs', async () => {
          const store = freshStore({ retentionMs: 3_600_000 });
          const claim = claimOf();
          const answer = { ok: true as const, published_url: 'https://blog.example.com/a' };
          expect(await store.complete(claim, leaseOf(await store.claim(claim)), answer)).toBe(true);
          expect(await store.claim(claim)).toEqual({ state: 'done', answer });
          expect(await keys()).toEqual([`${prefix}id:${claim.deliveryId}`]);
          const ttl = Number(await redis.command(['PTTL', `${prefix}id:${claim.deliveryId}`]));
          expect(ttl).toBeGreaterThan(3_000_000);
          expect(ttl).toBeLessThanOrEqual(3_600_000);
        });

        it('frees the delivery on release, so the retry claims it again', async () => {
          const store = freshStore();
          const claim = claimOf();
          await store.release(claim, leaseOf(await store.claim(claim)));
          expect(await keys()).toEqual([]);
          expect((await store.claim(claim)).state).toBe('claimed');
        });

        it('lets exactly one of 50 concurrent claims of one delivery win, each with its own lease', async () => {
          const store = freshStore();
          const claim = claimOf();
          const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.claim(claim)));
          expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
          expect(outcomes.filter((outcome) => outcome.state === 'in-progress')).toHaveLength(49);
          const leases = await Promise.all([1, 2, 3].map(async () => leaseOf(await store.claim(claimOf()))));
          expect(new Set(leases).size).toBe(3);
        });

        it('frees a claim whose lease ran out, so a crashed handler does not block the delivery', async () => {
          const store = freshStore({ leaseMs: 150 });
          const claim = claimOf();
          await store.claim(claim);
          await sleep(300);
          expect((await store.claim(claim)).state).toBe('claimed');
        });

        it('keeps a renewed claim past its lease, by the Redis TTL', async () => {
          const store = freshStore({ leaseMs: 200 });
          const claim = claimOf();
          const lease = leaseOf(await store.claim(claim));
          for (let i = 0; i < 6; i++) {
            await sleep(70);
            expect(await store.renew!(claim, lease)).toBe(true);
          }
          expect(await store.claim(claim)).toEqual({ state: 'in-progress' });
          const ttl = Number(await redis.command(['PTTL', `${prefix}id:${claim.deliveryId}`]));
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(200);
        });

        it('records a delivery whose lease lapsed when nobody took it over', async () => {
          const store = freshStore({ leaseMs: 100 });
          const claim = claimOf();
          const lease = leaseOf(await store.claim(claim));
          await sleep(250);
          expect(await keys()).toEqual([]);
          expect(await store.complete(claim, lease, { ok: true, published_url: 'https://late.example.com/' })).toBe(
            true,
          );
          expect(await store.claim(claim)).toEqual({
            state: 'done',
            answer: { ok: true, published_url: 'https://late.example.com/' },
          });
        });

        it("refuses to renew, complete over or release the claim another request took, and keeps the other's record", async () => {
          const store = freshStore({ leaseMs: 100 });
          const other = redisDedupStore(redis.client, { keyPrefix: prefix, leaseMs: 60_000 });
          const claim = claimOf();
          const lapsed = leaseOf(await store.claim(claim));
          await sleep(250);
          const current = leaseOf(await other.claim(claim));
          expect(await store.renew!(claim, lapsed)).toBe(false);
          expect(await store.complete(claim, lapsed, { ok: true, published_url: 'https://lapsed.example.com/' })).toBe(
            false,
          );
          await store.release(claim, lapsed);
          expect(await other.claim(claim)).toEqual({ state: 'in-progress' });
          expect(
            await other.complete(claim, current, { ok: true, published_url: 'https://current.example.com/' }),
          ).toBe(true);
          expect(await store.complete(claim, lapsed, { ok: true })).toBe(false);
          expect(await store.claim(claim)).toEqual({
            state: 'done',
            answer: { ok: true, published_url: 'https://current.example.com/' },
          });
        });

        it.each([
          ['without', claimOf],
          ['with', orderedClaimOf],
        ])('takes two round trips on the happy path %s ordering: one claim, one complete', async (_, make) => {
          const { client, calls } = countingScripts(redis.client as object);
          const counting = redisDedupStore(client as RedisClientLike, { keyPrefix: freshPrefix() });
          // Loads both scripts, if this Redis has not seen them yet.
          const warm = make();
          await counting.complete(warm, leaseOf(await counting.claim(warm)), { ok: true });
          calls.length = 0;
          const claim = make();
          await counting.complete(claim, leaseOf(await counting.claim(claim)), { ok: true });
          expect(calls).toEqual(['evalSha', 'evalSha'].map((call) => (name === 'ioredis' ? call.toLowerCase() : call)));
        });

        it('reloads its scripts after Redis forgot them (SCRIPT FLUSH, restart)', async () => {
          const store = freshStore();
          await store.claim(claimOf());
          await redis.command(['SCRIPT', 'FLUSH']);
          const claim = claimOf();
          const lease = leaseOf(await store.claim(claim));
          expect(await store.claim(claim)).toEqual({ state: 'in-progress' });
          await redis.command(['SCRIPT', 'FLUSH']);
          expect(await store.complete(claim, lease, { ok: true })).toBe(true);
          expect(await store.claim(claim)).toEqual({ state: 'done', answer: { ok: true } });
        });
      });

      it('refuses at construction a client that is neither node-redis nor ioredis, naming both', () => {
        expect(() => redisDedupStore({ get() {} } as unknown as RedisClientLike)).toThrow(
          /node-redis v4\+.*ioredis v5/,
        );
      });

      it('refuses a lease that is not a positive number, and a key prefix with an empty hash tag', async () => {
        const redis = await connect('redis');
        try {
          expect(() => redisDedupStore(redis.client, { leaseMs: 0 })).toThrow(/leaseMs must be a positive number/);
          expect(() => redisDedupStore(redis.client, { keyPrefix: 'hooks{}:' })).toThrow(/empty hash tag/);
          expect(() => redisDedupStore(redis.client, { keyPrefix: '{hooks}:' })).not.toThrow();
        } finally {
          await redis.close();
        }
      });
    },
  );
}
