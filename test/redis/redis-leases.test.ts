import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

const token = 'redis-lease-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithRedis('leases on Redis while a handler runs (contract v2)', () => {
  describe.each(clientNames)('with the %s client', (name) => {
    let redis: TestClient;
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis?.close());
    const store = (leaseMs: number, keyPrefix = freshPrefix()) => redisDedupStore(redis.client, { keyPrefix, leaseMs });
    const copyOf = (deliveryId: string) => () => signDelivery({ token, payload: articleSyncPayload(), deliveryId });

    it('keeps a 1.2 s handler with a 300 ms lease from running twice: 409 at 0.7 s, then the duplicate answer', async () => {
      const onError = vi.fn();
      const receiver = createReceiver({ token, dedup: store(300), onError });
      let runs = 0;
      const handlers: WebhookHandlers = {
        'article.sync': async () => {
          runs++;
          await sleep(1200);
          return { publishedUrl: 'https://blog.example.com/slow' };
        },
      };
      const copy = copyOf(randomUUID());
      const first = receiver.handle(copy(), handlers);
      await sleep(700);
      expect(await receiver.handle(copy(), handlers)).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
      expect(await first).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/slow' } });
      expect(await receiver.handle(copy(), handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/slow', duplicate: true },
      });
      expect(runs).toBe(1);
      expect(onError).not.toHaveBeenCalled();
    });

    it('records a delivery whose lease lapsed under a handler that blocked the event loop, when nobody took it', async () => {
      const onError = vi.fn();
      const receiver = createReceiver({ token, dedup: store(100), onError });
      let runs = 0;
      // Synchronous and CPU-bound: no renewal can run, so the 100 ms lease lapses in Redis.
      const handlers: WebhookHandlers = {
        'article.sync': () => {
          runs++;
          const until = Date.now() + 300;
          while (Date.now() < until);
          return { publishedUrl: 'https://blog.example.com/busy' };
        },
      };
      const copy = copyOf(randomUUID());
      expect((await receiver.handle(copy(), handlers)).status).toBe(200);
      expect(await receiver.handle(copy(), handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/busy', duplicate: true },
      });
      expect(runs).toBe(1);
      expect(onError).not.toHaveBeenCalled();
    });

    it("tells onError when another request took the delivery over, and keeps the other's record", async () => {
      const keyPrefix = freshPrefix();
      // This store's leases are never renewed (a version-1 style store), so they lapse under a slow handler.
      const { renew: _none, ...unrenewed } = store(100, keyPrefix);
      const onError = vi.fn();
      const stalled = createReceiver({ token, dedup: unrenewed, onError });
      const healthy = createReceiver({ token, dedup: store(60_000, keyPrefix) });
      const answering = (url: string, ms: number): WebhookHandlers => ({
        'article.sync': async () => {
          await sleep(ms);
          return { publishedUrl: url };
        },
      });
      const copy = copyOf(randomUUID());
      const first = stalled.handle(copy(), answering('https://blog.example.com/stalled', 400));
      await sleep(200);
      expect(await healthy.handle(copy(), answering('https://blog.example.com/took-over', 0))).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/took-over' },
      });
      expect((await first).status).toBe(200);
      expect(onError).toHaveBeenCalledTimes(1);
      expect(String(onError.mock.calls[0]?.[0])).toMatch(/taken over by another request/);
      expect(await stalled.handle(copy(), answering('https://blog.example.com/again', 0))).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/took-over', duplicate: true },
      });
    });
  });
});
