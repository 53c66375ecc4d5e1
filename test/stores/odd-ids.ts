import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver, type DedupClaim, type DedupStore, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { CLAIMED, leaseOf } from './contract-kit.js';

/** Makes a store of the kind under test that shares nothing with any store made before. */
export type FreshNamespaceStore = () => Promise<DedupStore> | DedupStore;

const tenKilobytes = (): string => randomBytes(5120).toString('hex');
const longPrefix = tenKilobytes();

/**
 * Strings the envelope allows and a store might mangle: NUL (Postgres text cannot hold it),
 * lone surrogates (UTF-8 encoders turn both into U+FFFD, so they must not meet each other or
 * U+FFFD itself), 10 KB ids (past a btree index row) that differ only in their last
 * character, and ids that look like the store's own key syntax.
 */
export const ODD_IDS: readonly string[] = [
  '\u0000',
  'a\u0000b',
  'a',
  '\uD800',
  '\uDC00',
  '\uFFFD',
  'x\uD800y',
  'x\uDBFFy',
  '\uDC00\uD800',
  `${longPrefix}a`,
  `${longPrefix}b`,
  '\u0001',
  'q}:mark',
  '}{a:}',
  'é😀',
];

const answerFor = (i: number) => ({ ok: true as const, published_url: `https://odd.example.com/${i}` });

/**
 * Contract v3, "Any string the envelope allows works as a delivery id and an article id on
 * every store": each odd id is claimed, handled and replayed on its own, and two distinct ids
 * never share a record.
 */
export function oddIdContract(name: string, fresh: FreshNamespaceStore): void {
  describe(`${name}: odd delivery and article ids (contract v3)`, () => {
    it('handles every odd delivery id once and replays its own answer, never another id’s', async () => {
      const store = await fresh();
      for (const [i, deliveryId] of ODD_IDS.entries()) {
        const claim: DedupClaim = { deliveryId };
        const outcome = await store.claim(claim);
        expect(outcome, `claim of id #${i}`).toEqual(CLAIMED);
        expect(await store.complete(claim, leaseOf(outcome), answerFor(i))).not.toBe(false);
      }
      for (const [i, deliveryId] of ODD_IDS.entries()) {
        expect(await store.claim({ deliveryId }), `replay of id #${i}`).toEqual({
          state: 'done',
          answer: answerFor(i),
        });
      }
    });

    it('keeps one newest mark per odd article id, with odd delivery ids', async () => {
      const store = await fresh();
      for (const [i, id] of ODD_IDS.entries()) {
        const claim: DedupClaim = { deliveryId: id, order: { articleId: id, timestamp: 200 + i } };
        const outcome = await store.claim(claim);
        expect(outcome, `claim for article #${i}`).toEqual(CLAIMED);
        expect(await store.complete(claim, leaseOf(outcome), answerFor(i))).not.toBe(false);
      }
      for (const [i, id] of ODD_IDS.entries()) {
        const older = { deliveryId: `${id}-older`, order: { articleId: id, timestamp: 100 } };
        expect(await store.claim(older), `older delivery for article #${i}`).toEqual({
          state: 'stale',
          newerTimestamp: 200 + i,
        });
        expect(await store.claim({ deliveryId: id, order: { articleId: id, timestamp: 200 + i } })).toEqual({
          state: 'done',
          answer: answerFor(i),
        });
      }
    });

    it("never mistakes one article's delivery for another article's mark or running lease", async () => {
      const store = await fresh();
      // Glued naively into `{a:<article>}:id:<delivery>` and `{a:<article>}:mark`, these meet.
      const first: DedupClaim = { deliveryId: 'q}:mark', order: { articleId: 'p', timestamp: 100 } };
      await store.complete(first, leaseOf(await store.claim(first)), { ok: true });
      const second: DedupClaim = { deliveryId: 'd', order: { articleId: 'p}:id:q', timestamp: 100 } };
      expect(await store.claim(second)).toEqual(CLAIMED);
      const third: DedupClaim = { deliveryId: 'q}:run', order: { articleId: 'r', timestamp: 100 } };
      const running: DedupClaim = { deliveryId: 'e', order: { articleId: 'r}:id:q', timestamp: 100 } };
      expect(await store.claim(running)).toEqual(CLAIMED);
      expect(await store.claim(third)).toEqual(CLAIMED);
    });

    it('answers a delivery with a NUL article id and a lone-surrogate delivery id through receiver.handle', async () => {
      const token = 'odd-ids-token';
      const receiver = createReceiver({ token, ordering: true, dedup: await fresh(), onError: () => {} });
      const runs: string[] = [];
      const handlers: WebhookHandlers = {
        'article.sync': (event) => void runs.push(`${event.deliveryId}|${event.article.id}`),
      };
      const article = { id: 'article\u0000one' };
      const deliver = (deliveryId: string, timestamp: number) =>
        receiver.handle(
          signDelivery({ token, deliveryId, payload: articleSyncPayload({ article, timestamp }) }),
          handlers,
        );
      const now = Math.floor(Date.now() / 1000);
      expect(await deliver('\uD800', now - 10)).toEqual({ status: 200, body: { ok: true } });
      expect(await deliver('\uD800', now - 10)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
      expect(await deliver('\uDC00', now - 5)).toEqual({ status: 200, body: { ok: true } });
      expect(await deliver('\uFFFD', now - 20)).toEqual({ status: 200, body: { ok: true, stale: true } });
      expect(runs).toEqual(['\uD800|article\u0000one', '\uDC00|article\u0000one']);
    });
  });
}
