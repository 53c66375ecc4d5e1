import type { DedupClaim, DedupStore } from '../dedup/store.js';
import { expectOutcome, expectThat, leaseOf, newId, type StoreCheck, sleep } from './store-check.js';

const forArticle = (articleId: string, timestamp: number): DedupClaim => ({
  deliveryId: newId(),
  order: { articleId, timestamp },
});

const needsOrdering = (store: DedupStore) =>
  store.ordering === true ? undefined : 'ordering is not declared (`ordering: true`)';

const applied = async (store: DedupStore, claim: DedupClaim) => {
  const completed = await store.complete(claim, leaseOf(await store.claim(claim), 'claim'), { ok: true });
  expectThat(completed !== false, 'complete with the current lease answered false');
};

/** Contract v2's ordering: checked on stores that declare `ordering: true`. */
export const ORDERING_CHECKS: StoreCheck[] = [
  {
    name: 'ordering: an older delivery answers stale and is recorded done as stale',
    fix: "With claim.order, compare the timestamp with the article's newest applied one: older answers `{ state: 'stale', newerTimestamp }` and records the id done as `{ ok: true, stale: true }`; an equal one runs.",
    skip: needsOrdering,
    async run({ fresh }) {
      const store = await fresh();
      const article = newId();
      await applied(store, forArticle(article, 200));
      const older = forArticle(article, 100);
      expectOutcome(await store.claim(older), { state: 'stale', newerTimestamp: 200 }, 'claim of an older delivery');
      expectOutcome(await store.claim(older), { state: 'done', answer: { ok: true, stale: true } }, 'its second claim');
      leaseOf(await store.claim(forArticle(article, 200)), 'claim of another delivery with the same timestamp');
    },
  },
  {
    name: 'ordering: exactly one of many concurrent deliveries for one article runs',
    fix: "Hold the article while one of its deliveries runs, in the same atomic write as the claim; answer the others `{ state: 'in-progress' }`.",
    skip: needsOrdering,
    async run({ fresh, concurrentClaims }) {
      const store = await fresh();
      const article = newId();
      const outcomes = await Promise.all(
        Array.from({ length: concurrentClaims }, () => store.claim(forArticle(article, 100))),
      );
      const won = outcomes.filter((outcome) => outcome.state === 'claimed').length;
      expectThat(won === 1, `${concurrentClaims} concurrent deliveries for one article: ${won} claimed, expected 1`);
    },
  },
  {
    name: 'ordering: the mark only rises, even when an older delivery completes late',
    fix: "On complete, set the article's mark to the larger of the stored one and this delivery's timestamp (`GREATEST`, a conditional update), never overwrite it.",
    skip: needsOrdering,
    async run({ fresh, leaseMs }) {
      const store = await fresh({ leaseMs });
      const article = newId();
      const slow = forArticle(article, 100);
      const slowLease = leaseOf(await store.claim(slow), 'claim');
      await sleep(leaseMs * 2.5);
      await applied(store, forArticle(article, 200));
      await store.complete(slow, slowLease, { ok: true });
      expectOutcome(
        await store.claim(forArticle(article, 150)),
        { state: 'stale', newerTimestamp: 200 },
        'claim at 150 after 200 applied and 100 completed late',
      );
    },
  },
];
