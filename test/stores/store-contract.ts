import { describe, expect, it } from 'vitest';
import type { ClaimOutcome, DedupClaim, DedupStore } from 'webhook-cms-receiver';

/** Makes a fresh, empty store with the given lease and retention (milliseconds). */
export type MakeStore = (options: { leaseMs: number; retentionMs: number }) => Promise<DedupStore> | DedupStore;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;
const fresh = (prefix = 'd') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

async function leaseOf(outcome: ClaimOutcome | Promise<ClaimOutcome>): Promise<string> {
  const settled = await outcome;
  if (settled.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(settled)}`);
  return settled.lease;
}

/**
 * The behaviour every `DedupStore` in this package shares (contract v2: the delivery id alone,
 * renewed leases, takeover-aware complete, ordering), written against the interface only and
 * run with real time against each store: memory, Redis, Postgres, Durable Objects.
 *
 * @example
 * ```ts
 * storeContract('memoryDedupStore', ({ leaseMs, retentionMs }) => memoryDedupStore({ leaseMs, retentionMs }));
 * ```
 */
export function storeContract(name: string, make: MakeStore): void {
  const store = (leaseMs = 60_000, retentionMs = 3_600_000) => Promise.resolve(make({ leaseMs, retentionMs }));

  describe(`${name}: the DedupStore contract`, () => {
    it('claims a new id once; a second claim sees it in progress', async () => {
      const s = await store();
      const claim = { deliveryId: fresh() };
      await leaseOf(s.claim(claim));
      expect(await s.claim(claim)).toEqual({ state: 'in-progress' });
    });

    it('answers done with the stored answer after complete', async () => {
      const s = await store();
      const claim = { deliveryId: fresh() };
      const lease = await leaseOf(s.claim(claim));
      expect(await s.complete(claim, lease, { ok: true, published_url: 'https://blog.example.com/a' })).not.toBe(false);
      expect(await s.claim(claim)).toEqual({
        state: 'done',
        answer: { ok: true, published_url: 'https://blog.example.com/a' },
      });
    });

    it('frees the id on release, so the retry claims it', async () => {
      const s = await store();
      const claim = { deliveryId: fresh() };
      await s.release(claim, await leaseOf(s.claim(claim)));
      await leaseOf(s.claim(claim));
    });

    it('gives every claim its own lease, and exactly one of 50 concurrent claims wins', async () => {
      const s = await store();
      const leases = await Promise.all([1, 2, 3].map(() => leaseOf(s.claim({ deliveryId: fresh() }))));
      expect(new Set(leases).size).toBe(3);
      const claim = { deliveryId: fresh() };
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => s.claim(claim)));
      expect(outcomes.filter((o) => o.state === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.state === 'in-progress')).toHaveLength(49);
    });

    it('frees an unrenewed claim after one lease; a renewed one holds past it', async () => {
      const s = await store(300);
      const crashed = { deliveryId: fresh() };
      await leaseOf(s.claim(crashed));
      const running = { deliveryId: fresh() };
      const lease = await leaseOf(s.claim(running));
      for (let i = 0; i < 5; i++) {
        await sleep(100);
        expect(await s.renew?.(running, lease)).toBe(true);
      }
      expect((await s.claim(crashed)).state).toBe('claimed');
      expect(await s.claim(running)).toEqual({ state: 'in-progress' });
    });

    it('records a lapsed lease when nobody took the id over', async () => {
      const s = await store(150);
      const claim = { deliveryId: fresh() };
      const lease = await leaseOf(s.claim(claim));
      await sleep(400);
      expect(await s.complete(claim, lease, { ok: true })).not.toBe(false);
      expect(await s.claim(claim)).toEqual({ state: 'done', answer: { ok: true } });
    });

    it('refuses complete, renew and release from a lease another request took over, keeping theirs', async () => {
      const s = await store(150);
      const claim = { deliveryId: fresh() };
      const stale = await leaseOf(s.claim(claim));
      await sleep(400);
      const current = await leaseOf(s.claim(claim));
      expect(await s.renew?.(claim, stale)).toBe(false);
      expect(await s.complete(claim, stale, { ok: true, published_url: 'https://stale.example.com/' })).toBe(false);
      await s.release(claim, stale);
      expect(await s.claim(claim)).toEqual({ state: 'in-progress' });
      await s.complete(claim, current, { ok: true, published_url: 'https://current.example.com/' });
      expect(await s.claim(claim)).toEqual({
        state: 'done',
        answer: { ok: true, published_url: 'https://current.example.com/' },
      });
    });

    it('forgets a done id after retentionMs', async () => {
      const s = await store(60_000, 300);
      const claim = { deliveryId: fresh() };
      await s.complete(claim, await leaseOf(s.claim(claim)), { ok: true });
      expect((await s.claim(claim)).state).toBe('done');
      await sleep(600);
      expect((await s.claim(claim)).state).toBe('claimed');
    });
  });

  describe(`${name}: ordering`, () => {
    const ordered = (articleId: string, timestamp: number): DedupClaim => ({
      deliveryId: fresh(),
      order: { articleId, timestamp },
    });
    const applied = async (s: DedupStore, claim: DedupClaim) =>
      s.complete(claim, await leaseOf(s.claim(claim)), { ok: true });

    it('declares ordering support', async () => {
      expect((await store()).ordering).toBe(true);
    });

    it('sync t=100, trash t=200, late sync t=100 under a new id: the third is stale and recorded so', async () => {
      const s = await store();
      const article = fresh('art');
      await applied(s, ordered(article, 100));
      await applied(s, ordered(article, 200));
      const late = ordered(article, 100);
      expect(await s.claim(late)).toEqual({ state: 'stale', newerTimestamp: 200 });
      expect(await s.claim(late)).toEqual({ state: 'done', answer: { ok: true, stale: true } });
    });

    it('runs an equal timestamp, and never lets two deliveries for one article run at once', async () => {
      const s = await store();
      const article = fresh('art');
      await applied(s, ordered(article, 200));
      const same = ordered(article, 200);
      const lease = await leaseOf(s.claim(same));
      expect(await s.claim(ordered(article, 300))).toEqual({ state: 'in-progress' });
      expect((await s.claim(ordered(fresh('other'), 300))).state).toBe('claimed');
      await s.release(same, lease);
      await leaseOf(s.claim(ordered(article, 300)));
    });
  });
}
