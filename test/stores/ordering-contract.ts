import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DedupClaim, DedupStore } from 'webhook-cms-receiver';
import {
  CLAIMED,
  type ContractStoreOptions,
  type FreshStore,
  IN_PROGRESS,
  LEASE_MS,
  leaseOf,
  PAST_LEASE_MS,
  sleep,
} from './contract-kit.js';

const forArticle = (articleId: string, timestamp: number): DedupClaim => ({
  deliveryId: randomUUID(),
  order: { articleId, timestamp },
});

/** Contract v2, Ordering: per article, the newest applied timestamp (trash included) and one delivery at a time. */
export function orderingContract(store: FreshStore): void {
  const ordered = async (options?: ContractStoreOptions) => {
    const s = await store(options);
    if (s.ordering !== true) throw new Error('this store does not declare ordering: true');
    return s;
  };
  const applied = async (s: DedupStore, claim: DedupClaim) => {
    expect(await s.complete(claim, leaseOf(await s.claim(claim)), { ok: true })).not.toBe(false);
  };

  describe('with ordering', () => {
    it('declares ordering support', async () => {
      expect((await store()).ordering).toBe(true);
    });

    it('answers stale to an older delivery, records it done as {"ok":true,"stale":true}, and runs an equal timestamp', async () => {
      const s = await ordered();
      const article = randomUUID();
      await applied(s, forArticle(article, 200));
      const older = forArticle(article, 100);
      expect(await s.claim(older)).toEqual({ state: 'stale', newerTimestamp: 200 });
      expect(await s.claim(older)).toEqual({ state: 'done', answer: { ok: true, stale: true } });
      expect(await s.claim(forArticle(article, 200))).toEqual(CLAIMED);
    });

    it('keeps a trash as a tombstone: sync (t=100), trash (t=200), late sync (t=100, new id) → stale', async () => {
      const s = await ordered();
      const article = randomUUID();
      await applied(s, forArticle(article, 100));
      await applied(s, forArticle(article, 200));
      expect(await s.claim(forArticle(article, 100))).toEqual({ state: 'stale', newerTimestamp: 200 });
      expect(await s.claim(forArticle(article, 150))).toEqual({ state: 'stale', newerTimestamp: 200 });
      expect(await s.claim(forArticle(randomUUID(), 100))).toEqual(CLAIMED);
    });

    it('lets one delivery per article run at a time: in-progress until it completes or releases', async () => {
      const s = await ordered();
      const article = randomUUID();
      const first = forArticle(article, 100);
      const firstLease = leaseOf(await s.claim(first));
      const second = forArticle(article, 100);
      expect(await s.claim(second)).toEqual(IN_PROGRESS);
      expect(await s.claim(forArticle(randomUUID(), 100))).toEqual(CLAIMED);
      await s.release(first, firstLease);
      const secondLease = leaseOf(await s.claim(second));
      const third = forArticle(article, 300);
      expect(await s.claim(third)).toEqual(IN_PROGRESS);
      await s.complete(second, secondLease, { ok: true });
      expect(await s.claim(third)).toEqual(CLAIMED);
    });

    it('lets exactly one of 50 concurrent deliveries for one article run', async () => {
      const s = await ordered();
      const article = randomUUID();
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => s.claim(forArticle(article, 100))));
      expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.state === 'in-progress')).toHaveLength(49);
    });

    it("frees the article when the running delivery's lease lapses, and keeps it held while renewed", async () => {
      const s = await ordered({ leaseMs: LEASE_MS });
      const crashed = randomUUID();
      leaseOf(await s.claim(forArticle(crashed, 100)));
      await sleep(PAST_LEASE_MS);
      expect(await s.claim(forArticle(crashed, 100))).toEqual(CLAIMED);

      const renewed = randomUUID();
      const running = forArticle(renewed, 100);
      const lease = leaseOf(await s.claim(running));
      for (let i = 0; i < 8; i++) {
        await sleep(LEASE_MS / 3);
        expect(await s.renew!(running, lease)).toBe(true);
      }
      expect(await s.claim(forArticle(renewed, 100))).toEqual(IN_PROGRESS);
    });

    it('only raises the mark: an older delivery completing late never lowers it', async () => {
      const s = await ordered({ leaseMs: LEASE_MS });
      const article = randomUUID();
      const slow = forArticle(article, 100);
      const slowLease = leaseOf(await s.claim(slow));
      await sleep(PAST_LEASE_MS);
      await applied(s, forArticle(article, 200));
      expect(await s.complete(slow, slowLease, { ok: true })).not.toBe(false);
      expect(await s.claim(forArticle(article, 150))).toEqual({ state: 'stale', newerTimestamp: 200 });
    });

    it('leaves the mark as it was when a delivery fails (release)', async () => {
      const s = await ordered();
      const article = randomUUID();
      await applied(s, forArticle(article, 200));
      const failing = forArticle(article, 300);
      await s.release(failing, leaseOf(await s.claim(failing)));
      expect(await s.claim(forArticle(article, 250))).toEqual(CLAIMED);
    });

    it('answers a duplicate of a done delivery, and a stale one, at once even while another delivery runs', async () => {
      const s = await ordered();
      const article = randomUUID();
      const done = forArticle(article, 200);
      await applied(s, done);
      leaseOf(await s.claim(forArticle(article, 300)));
      expect(await s.claim(done)).toEqual({ state: 'done', answer: { ok: true } });
      expect(await s.claim(forArticle(article, 100))).toEqual({ state: 'stale', newerTimestamp: 200 });
    });

    it("forgets an article's mark after retentionMs", async () => {
      const s = await ordered({ leaseMs: LEASE_MS, retentionMs: 300 });
      const article = randomUUID();
      await applied(s, forArticle(article, 200));
      expect(await s.claim(forArticle(article, 100))).toEqual({ state: 'stale', newerTimestamp: 200 });
      await sleep(700);
      expect(await s.claim(forArticle(article, 100))).toEqual(CLAIMED);
    });
  });
}
