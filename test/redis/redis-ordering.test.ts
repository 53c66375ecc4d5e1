import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimOutcome, createReceiver, type DedupClaim, type StaleInfo } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

const token = 'redis-ordering-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leaseOf = (outcome: ClaimOutcome): string => {
  if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(outcome)}`);
  return outcome.lease;
};

describeWithRedis('redisDedupStore with ordering (contract v2: stale deliveries)', () => {
  describe.each(clientNames)('with the %s client', (name) => {
    let redis: TestClient;
    let prefix: string;
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis?.close());
    const freshStore = (options: { leaseMs?: number } = {}) => {
      prefix = freshPrefix();
      return redisDedupStore(redis.client, { keyPrefix: prefix, ...options });
    };
    const article = randomUUID;
    const at = (articleId: string, timestamp: number): DedupClaim => ({
      deliveryId: randomUUID(),
      order: { articleId, timestamp },
    });

    it('declares ordering, answers stale to an older delivery and records it done as {"ok":true,"stale":true}', async () => {
      const store = freshStore();
      expect(store.ordering).toBe(true);
      const id = article();
      const newer = at(id, 200);
      await store.complete(newer, leaseOf(await store.claim(newer)), { ok: true });
      const older = at(id, 100);
      expect(await store.claim(older)).toEqual({ state: 'stale', newerTimestamp: 200 });
      expect(await store.claim(older)).toEqual({ state: 'done', answer: { ok: true, stale: true } });
      // An equal timestamp runs: order within one second cannot be known.
      expect((await store.claim(at(id, 200))).state).toBe('claimed');
    });

    it('lets one delivery per article run at a time: in-progress until it completes or releases', async () => {
      const store = freshStore();
      const id = article();
      const first = at(id, 100);
      const lease = leaseOf(await store.claim(first));
      const second = at(id, 100);
      expect(await store.claim(second)).toEqual({ state: 'in-progress' });
      expect((await store.claim(at(article(), 100))).state).toBe('claimed');
      await store.release(first, lease);
      const next = leaseOf(await store.claim(second));
      expect(await store.claim(at(id, 300))).toEqual({ state: 'in-progress' });
      await store.complete(second, next, { ok: true });
      expect((await store.claim(at(id, 300))).state).toBe('claimed');
    });

    it("keeps the article's keys in one hash slot and the mark for the retention period", async () => {
      const store = redisDedupStore(redis.client, { keyPrefix: (prefix = freshPrefix()), retentionMs: 3_600_000 });
      const id = article();
      const claim = at(id, 100);
      const lease = leaseOf(await store.claim(claim));
      const tag = `${prefix}{a:${id}}`;
      expect(((await redis.command(['KEYS', `${prefix}*`])) as string[]).sort()).toEqual(
        [`${tag}:id:${claim.deliveryId}`, `${tag}:run`].sort(),
      );
      await store.complete(claim, lease, { ok: true });
      expect(((await redis.command(['KEYS', `${prefix}*`])) as string[]).sort()).toEqual(
        [`${tag}:id:${claim.deliveryId}`, `${tag}:mark`].sort(),
      );
      expect(await redis.command(['GET', `${tag}:mark`])).toBe('100');
      expect(Number(await redis.command(['PTTL', `${tag}:mark`]))).toBeGreaterThan(3_000_000);
    });

    it('raises the mark to the newest timestamp: an older delivery completing late never lowers it', async () => {
      const store = freshStore({ leaseMs: 100 });
      const id = article();
      const slow = at(id, 100);
      const slowLease = leaseOf(await store.claim(slow));
      await sleep(250); // its process stalled; the article's hold lapsed
      const newer = at(id, 200);
      await store.complete(newer, leaseOf(await store.claim(newer)), { ok: true });
      expect(await store.complete(slow, slowLease, { ok: true })).toBe(true);
      expect(await store.claim(at(id, 150))).toEqual({ state: 'stale', newerTimestamp: 200 });
    });

    it("renews the delivery and the article's hold together; a crashed holder frees the article after one lease", async () => {
      const store = freshStore({ leaseMs: 200 });
      const id = article();
      const running = at(id, 100);
      const lease = leaseOf(await store.claim(running));
      for (let i = 0; i < 6; i++) {
        await sleep(70);
        expect(await store.renew!(running, lease)).toBe(true);
      }
      expect(await store.claim(at(id, 100))).toEqual({ state: 'in-progress' });
      expect(await store.claim(running)).toEqual({ state: 'in-progress' });
      await sleep(350); // no more renewals: as if the process crashed
      expect((await store.claim(at(id, 100))).state).toBe('claimed');
      expect(await store.renew!(running, lease)).toBe(false);
    });

    it('through a receiver: sync, trash, then a late sync answered stale without running, onStale told', async () => {
      const stale: StaleInfo[] = [];
      const receiver = createReceiver({
        token,
        ordering: true,
        dedup: freshStore(),
        onStale: (info) => stale.push(info),
      });
      const runs: string[] = [];
      const handlers = {
        'article.sync': () => void runs.push('sync'),
        'article.trash': () => void runs.push('trash'),
      };
      const id = article();
      const send = (payload: object) => receiver.handle(signDelivery({ token, payload }), handlers);
      const sync = articleSyncPayload({ timestamp: 100, article: { id } });
      expect(await send(sync)).toEqual({ status: 200, body: { ok: true } });
      expect(await send(articleTrashPayload({ timestamp: 200, article: { id } }))).toEqual({
        status: 200,
        body: { ok: true },
      });
      const late = signDelivery({ token, payload: sync });
      expect(await receiver.handle(late, handlers)).toEqual({ status: 200, body: { ok: true, stale: true } });
      expect(await receiver.handle(late, handlers)).toEqual({
        status: 200,
        body: { ok: true, stale: true, duplicate: true },
      });
      expect(runs).toEqual(['sync', 'trash']);
      expect(stale).toEqual([
        expect.objectContaining({ deliveryId: late.headers['X-Service-Delivery-Id'], articleId: id, timestamp: 100 }),
      ]);
      expect(stale[0]!.newerTimestamp).toBe(200);
      // A sync at the trash's own second runs: equal timestamps cannot be ordered.
      expect(await send(articleSyncPayload({ timestamp: 200, article: { id } }))).toEqual({
        status: 200,
        body: { ok: true },
      });
      expect(runs).toEqual(['sync', 'trash', 'sync']);
    });

    it('through a receiver: a second delivery for an article being handled gets 409, another article runs', async () => {
      const receiver = createReceiver({ token, ordering: true, dedup: freshStore() });
      let finish!: () => void;
      const handlers = {
        'article.sync': ({ article }: { article: { slug: string } }) =>
          article.slug === 'slow' ? new Promise<void>((resolve) => (finish = resolve)) : undefined,
      };
      const id = article();
      const slow = receiver.handle(
        signDelivery({ token, payload: articleSyncPayload({ timestamp: 100, article: { id, slug: 'slow' } }) }),
        handlers,
      );
      await expect.poll(() => finish).toBeTypeOf('function');
      const sameArticle = signDelivery({ token, payload: articleSyncPayload({ timestamp: 150, article: { id } }) });
      expect(await receiver.handle(sameArticle, handlers)).toEqual({
        status: 409,
        body: { error: 'Delivery in progress' },
      });
      const other = signDelivery({ token, payload: articleSyncPayload({ article: { id: article() } }) });
      expect((await receiver.handle(other, handlers)).status).toBe(200);
      finish();
      expect(await slow).toEqual({ status: 200, body: { ok: true } });
      expect(await receiver.handle(sameArticle, handlers)).toEqual({ status: 200, body: { ok: true } });
    });
  });
});
