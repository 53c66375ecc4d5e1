import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DedupClaim, DedupStore, StoredAnswer } from 'webhook-cms-receiver';
import { checkDedupStore } from 'webhook-cms-receiver/testing';
import {
  CLAIMED,
  type ContractStoreOptions,
  IN_PROGRESS,
  LEASE_MS,
  leaseOf,
  PAST_LEASE_MS,
  sleep,
} from './contract-kit.js';
import { orderingContract } from './ordering-contract.js';

/** Makes a fresh store of the kind under test with the given lease and retention (milliseconds). */
export type MakeStore = (options: { leaseMs: number; retentionMs: number }) => Promise<DedupStore> | DedupStore;

const delivery = (): DedupClaim => ({ deliveryId: randomUUID() });
const PUBLISHED: StoredAnswer = { ok: true, published_url: 'https://blog.example.com/contract' };

/**
 * The behaviour every `DedupStore` of this package shares (contract v2, Dedup and Ordering),
 * written against the interface alone, with real time and small leases, and run against each
 * store: memory, Redis, Postgres (all its clients), Durable Objects, and then through
 * `checkDedupStore`, the kit users run on theirs (webhook-cms-receiver/testing). The ordering tests
 * expect the store to declare `ordering: true`, as every store of this package does.
 *
 * @example
 * ```ts
 * storeContract('memoryDedupStore', ({ leaseMs, retentionMs }) => memoryDedupStore({ leaseMs, retentionMs }));
 * ```
 */
export function storeContract(name: string, makeStore: MakeStore): void {
  const store = async (options: ContractStoreOptions = {}) =>
    makeStore({ leaseMs: options.leaseMs ?? 60_000, retentionMs: options.retentionMs ?? 3_600_000 });

  describe(`${name}: the DedupStore contract`, () => {
    it('claims a new delivery id, and answers in-progress to a second claim of it', async () => {
      const s = await store();
      const claim = delivery();
      expect(await s.claim(claim)).toEqual(CLAIMED);
      expect(await s.claim(claim)).toEqual(IN_PROGRESS);
      expect(await s.claim(delivery())).toEqual(CLAIMED);
    });

    it('records the answer on complete and replays it to every later claim', async () => {
      const s = await store();
      const withUrl = delivery();
      expect(await s.complete(withUrl, leaseOf(await s.claim(withUrl)), PUBLISHED)).not.toBe(false);
      expect(await s.claim(withUrl)).toEqual({ state: 'done', answer: PUBLISHED });
      expect(await s.claim(withUrl)).toEqual({ state: 'done', answer: PUBLISHED });
      const plain = delivery();
      await s.complete(plain, leaseOf(await s.claim(plain)), { ok: true });
      expect(await s.claim(plain)).toEqual({ state: 'done', answer: { ok: true } });
    });

    it('frees the delivery on release, so the retry claims it again', async () => {
      const s = await store();
      const claim = delivery();
      await s.release(claim, leaseOf(await s.claim(claim)));
      expect(await s.claim(claim)).toEqual(CLAIMED);
    });

    it('gives every claim its own lease', async () => {
      const s = await store();
      const again = delivery();
      const first = leaseOf(await s.claim(again));
      await s.release(again, first);
      const leases = [first, leaseOf(await s.claim(again))];
      for (let i = 0; i < 3; i++) leases.push(leaseOf(await s.claim(delivery())));
      expect(new Set(leases).size).toBe(leases.length);
    });

    it('lets exactly one of 50 concurrent claims of one delivery win', async () => {
      const s = await store();
      const claim = delivery();
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => s.claim(claim)));
      expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.state === 'in-progress')).toHaveLength(49);
    });

    it('frees a claim whose lease ran out, so a crashed handler does not block its delivery', async () => {
      const s = await store({ leaseMs: LEASE_MS });
      const claim = delivery();
      leaseOf(await s.claim(claim));
      await sleep(PAST_LEASE_MS);
      expect(await s.claim(claim)).toEqual(CLAIMED);
    });

    it('keeps a claim that is renewed past its lease', async () => {
      const s = await store({ leaseMs: LEASE_MS });
      expect(typeof s.renew).toBe('function');
      const claim = delivery();
      const lease = leaseOf(await s.claim(claim));
      for (let i = 0; i < 8; i++) {
        await sleep(LEASE_MS / 3);
        expect(await s.renew!(claim, lease)).toBe(true);
      }
      expect(await s.claim(claim)).toEqual(IN_PROGRESS);
      expect(await s.complete(claim, lease, PUBLISHED)).not.toBe(false);
      expect(await s.claim(claim)).toEqual({ state: 'done', answer: PUBLISHED });
    });

    it('records a delivery whose lease lapsed when nobody took it over', async () => {
      const s = await store({ leaseMs: LEASE_MS });
      const claim = delivery();
      const lease = leaseOf(await s.claim(claim));
      await sleep(PAST_LEASE_MS);
      expect(await s.complete(claim, lease, PUBLISHED)).not.toBe(false);
      expect(await s.claim(claim)).toEqual({ state: 'done', answer: PUBLISHED });
    });

    it("refuses to renew, complete over or release a delivery another request took over, and keeps the other's claim", async () => {
      const s = await store({ leaseMs: LEASE_MS });
      const claim = delivery();
      const lapsed = leaseOf(await s.claim(claim));
      await sleep(PAST_LEASE_MS);
      const current = leaseOf(await s.claim(claim));
      expect(await s.renew!(claim, lapsed)).toBe(false);
      expect(await s.complete(claim, lapsed, { ok: true, published_url: 'https://lapsed.example.com/' })).toBe(false);
      await s.release(claim, lapsed);
      expect(await s.claim(claim)).toEqual(IN_PROGRESS);
      expect(await s.renew!(claim, current)).toBe(true);
      expect(await s.complete(claim, current, PUBLISHED)).not.toBe(false);
      expect(await s.claim(claim)).toEqual({ state: 'done', answer: PUBLISHED });
    });

    it('forgets a handled delivery after retentionMs', async () => {
      const s = await store({ leaseMs: LEASE_MS, retentionMs: 300 });
      const claim = delivery();
      await s.complete(claim, leaseOf(await s.claim(claim)), PUBLISHED);
      expect(await s.claim(claim)).toEqual({ state: 'done', answer: PUBLISHED });
      await sleep(700);
      expect(await s.claim(claim)).toEqual(CLAIMED);
    });

    it('passes checkDedupStore, the conformance kit users run on their own stores', async () => {
      const report = await checkDedupStore(makeStore, { name, throwOnFailure: false });
      expect(report.checks.filter((check) => check.outcome === 'failed')).toEqual([]);
      expect(report.checks.filter((check) => check.name.startsWith('ordering:')).map((check) => check.outcome)).toEqual(
        ['passed', 'passed', 'passed'],
      );
    }, 60_000);

    orderingContract(store);
  });
}
