import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { type RedisClientLike, redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import {
  type ClusterClient,
  connectCluster,
  describeWithCluster,
  type RunningCluster,
  startCluster,
} from './redis-cluster.js';
import { tenantIsolationContract } from '../stores/tenant-isolation.js';
import { connect, countingScripts, freshPrefix, type TestClient } from './redis-clients.js';

const token = 'redis-cluster-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithCluster('redisDedupStore on a real 3-master Redis Cluster', () => {
  let cluster: RunningCluster;
  let masters: TestClient[];
  beforeAll(async () => {
    cluster = await startCluster();
    masters = await Promise.all(cluster.nodes.map(({ url }) => connect('redis', url)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all((masters ?? []).map((master) => master.close()));
    await cluster?.stop();
  });

  describe.each(['redis', 'ioredis'] as const)('with the %s cluster client', (name) => {
    let redis: ClusterClient;
    let server: RunningServer | undefined;
    beforeAll(async () => {
      redis = await connectCluster(name, cluster.nodes);
    });
    afterAll(async () => {
      await server?.close();
      await redis?.close();
    });

    const errors: unknown[] = [];
    const runs: string[] = [];
    const handlers: WebhookHandlers = {
      'article.sync': async ({ article, deliveryId }) => {
        runs.push(deliveryId!);
        await sleep(article.slug === 'slow' ? 900 : 0);
        if (article.slug === 'fails') throw new Error('the database is read-only');
        return { publishedUrl: `https://blog.example.com/${article.slug}` };
      },
      'article.trash': ({ deliveryId }) => void runs.push(deliveryId!),
    };
    /** A real receiver behind the `/node` adapter on 127.0.0.1, with a store on the cluster. */
    const serve = async (store: DedupStore, ordering: boolean) => {
      await server?.close();
      const receiver = createReceiver({ token, dedup: store, ordering, onError: (error) => errors.push(error) });
      server = await listen(createServer(webhookHandler(receiver, handlers)));
      return async (payload: object, deliveryId: string = randomUUID()) => {
        const { headers, body } = signDelivery({ token, payload, deliveryId });
        const response = await fetch(`${server!.url}/webhook`, { method: 'POST', headers, body });
        return { status: response.status, body: await response.json() };
      };
    };
    tenantIsolationContract(`redisDedupStore on the cluster (${name})`, () =>
      redisDedupStore(redis.client, { keyPrefix: freshPrefix() }),
    );
    const keysOnEachMaster = (prefix: string) =>
      Promise.all(masters.map(async (master) => ((await master.command(['KEYS', `${prefix}*`])) as string[]).length));

    it.each([false, true])(
      'handles 60 deliveries and their copies with ordering %s, keys spread over all three masters',
      async (ordering) => {
        const prefix = freshPrefix();
        const send = await serve(redisDedupStore(redis.client, { keyPrefix: prefix, leaseMs: 300 }), ordering);
        runs.length = 0;
        const ids = Array.from({ length: 60 }, () => randomUUID());
        const payloads = ids.map((_, i) => articleSyncPayload({ article: { id: randomUUID(), slug: `post-${i}` } }));
        const first = await Promise.all(ids.map((id, i) => send(payloads[i]!, id)));
        expect(first.map(({ status }) => status)).toEqual(ids.map(() => 200));
        const again = await Promise.all(ids.map((id, i) => send(payloads[i]!, id)));
        expect(again.map(({ body }) => body)).toEqual(
          ids.map((_, i) => ({ ok: true, published_url: `https://blog.example.com/post-${i}`, duplicate: true })),
        );
        expect(runs.sort()).toEqual([...ids].sort());
        for (const count of await keysOnEachMaster(prefix)) expect(count).toBeGreaterThan(0);
        expect(errors).toEqual([]);
      },
    );

    it('keeps a slow handler with a 300 ms lease from running twice, and releases after a failure', async () => {
      const send = await serve(redisDedupStore(redis.client, { keyPrefix: freshPrefix(), leaseMs: 300 }), true);
      runs.length = 0;
      const slow = articleSyncPayload({ article: { id: randomUUID(), slug: 'slow' } });
      const id = randomUUID();
      const first = send(slow, id);
      await sleep(500);
      expect(await send(slow, id)).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
      expect((await first).status).toBe(200);
      expect((await send(slow, id)).body).toMatchObject({ duplicate: true });
      const failing = articleSyncPayload({ article: { id: randomUUID(), slug: 'fails' } });
      const failingId = randomUUID();
      expect((await send(failing, failingId)).status).toBe(500);
      expect((await send(failing, failingId)).status).toBe(500);
      expect(runs).toEqual([id, failingId, failingId]);
      expect(errors.splice(0).map(String)).toEqual(Array(2).fill('Error: the database is read-only'));
    });

    it('keeps rotation-window requests on the cluster: bounded, listed, taken by one caller, cleared', async () => {
      const kept = redisDedupStore(redis.client, { keyPrefix: freshPrefix() }).kept!;
      const limits = { maxCount: 2, maxBytes: 1024 * 1024, until: Date.now() + 60_000 };
      const request = (id: string) => ({
        id,
        tokenSha256: 'ab'.repeat(32),
        headers: { 'x-service-delivery-id': id },
        body: btoa('{"event":"test"}'),
        receivedAt: Date.now(),
      });
      expect(await kept.keep(request('k1'), limits)).toBe(true);
      expect(await kept.keep(request('k2'), limits)).toBe(true);
      expect(await kept.keep(request('k3'), limits)).toBe(false);
      expect((await kept.list()).map(({ id }) => id).sort()).toEqual(['k1', 'k2']);
      const taken = await Promise.all([kept.take('k1'), kept.take('k1')]);
      expect(taken.filter(Boolean).map((one) => one!.id)).toEqual(['k1']);
      expect(await kept.clear()).toBe(1);
      expect(await kept.list()).toEqual([]);
    });

    it('answers a late sync after a trash as stale, and 409 while another delivery for the article runs', async () => {
      const send = await serve(redisDedupStore(redis.client, { keyPrefix: freshPrefix() }), true);
      runs.length = 0;
      const article = { id: randomUUID() };
      expect((await send(articleSyncPayload({ timestamp: 100, article }))).status).toBe(200);
      expect((await send(articleTrashPayload({ timestamp: 200, article }))).status).toBe(200);
      expect(await send(articleSyncPayload({ timestamp: 100, article }))).toEqual({
        status: 200,
        body: { ok: true, stale: true },
      });
      expect(runs).toHaveLength(2);
      const busy = { id: randomUUID(), slug: 'slow' };
      const running = send(articleSyncPayload({ timestamp: 100, article: busy }));
      await sleep(300);
      expect(await send(articleSyncPayload({ timestamp: 200, article: { id: busy.id } }))).toEqual({
        status: 409,
        body: { error: 'Delivery in progress' },
      });
      expect((await running).status).toBe(200);
      expect(errors).toEqual([]);
    });

    it.each([false, true])(
      'takes two round trips on the happy path (ordering %s), and reloads scripts every master forgot',
      async (ordering) => {
        const { client, calls } = countingScripts(redis.client as object);
        const store = redisDedupStore(client as RedisClientLike, { keyPrefix: freshPrefix() });
        const claimOf = () => ({
          deliveryId: randomUUID(),
          ...(ordering ? { order: { articleId: randomUUID(), timestamp: 100 } } : {}),
        });
        for (const master of masters) await master.command(['SCRIPT', 'FLUSH']);
        // Claims spread over all three masters, each loading the scripts on first use. Random keys:
        // with 12 a master got none about once in 130 runs and the last claim then loaded them;
        // with 60 that is (2/3)^60, about 3 in 100 billion.
        for (let i = 0; i < 60; i++) {
          const claim = claimOf();
          const outcome = await store.claim(claim);
          if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${outcome.state}`);
          expect(await store.complete(claim, outcome.lease, { ok: true })).toBe(true);
          expect(await store.claim(claim)).toEqual({ state: 'done', answer: { ok: true } });
        }
        calls.length = 0;
        const claim = claimOf();
        const outcome = await store.claim(claim);
        await store.complete(claim, (outcome as { lease: string }).lease, { ok: true });
        expect(calls.map((call) => call.toLowerCase())).toEqual(['evalsha', 'evalsha']);
      },
    );
  });
});
