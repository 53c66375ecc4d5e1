import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

const token = 'redis-test-token';
const delivery = (deliveryId: string = randomUUID()) =>
  signDelivery({ token, payload: articleSyncPayload(), deliveryId });

describeWithRedis('receiver.handle with the Redis store: the contract dedup table', () => {
  describe.each(clientNames)('with the %s client', (name) => {
    let redis: TestClient;
    let receiver: Receiver;
    let runs: number;
    const handlers: WebhookHandlers = {
      'article.sync': ({ article }) => {
        runs++;
        return { publishedUrl: `https://blog.example.com/${article.slug}` };
      },
    };
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis?.close());
    const fresh = () => {
      runs = 0;
      receiver = createReceiver({ token, dedup: redisDedupStore(redis.client, { keyPrefix: freshPrefix() }) });
    };

    it('runs a new delivery and answers a repeat with the stored response and duplicate: true', async () => {
      fresh();
      const signed = delivery();
      expect(await receiver.handle(signed, handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips' },
      });
      expect(await receiver.handle(signed, handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips', duplicate: true },
      });
      expect(runs).toBe(1);
    });

    it('answers 409 to a copy that arrives while the first is still being handled', async () => {
      fresh();
      const signed = delivery();
      let finish!: () => void;
      const slow: WebhookHandlers = { 'article.sync': () => new Promise<void>((resolve) => (finish = resolve)) };
      const first = receiver.handle(signed, slow);
      await expect.poll(() => finish).toBeTypeOf('function');
      expect(await receiver.handle(signed, slow)).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
      finish();
      expect((await first).status).toBe(200);
    });

    it('releases the claim when the handler throws, so the retry runs the handler again', async () => {
      fresh();
      const signed = delivery();
      const failing: WebhookHandlers = { 'article.sync': () => Promise.reject(new Error('database down')) };
      expect(await receiver.handle(signed, failing)).toEqual({ status: 500, body: { error: 'Handler failed' } });
      expect(await receiver.handle(signed, handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips' },
      });
      expect(runs).toBe(1);
    });

    it('answers a replay of the same signed request under a new delivery id as a duplicate without running it', async () => {
      fresh();
      const signed = delivery();
      await receiver.handle(signed, handlers);
      const replay = { ...signed, headers: { ...signed.headers, 'X-Service-Delivery-Id': randomUUID() } };
      expect(await receiver.handle(replay, handlers)).toEqual({
        status: 200,
        body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips', duplicate: true },
      });
      expect(runs).toBe(1);
    });

    it('shares what one receiver handled with another receiver on the same Redis', async () => {
      fresh();
      const prefix = freshPrefix();
      const [a, b] = [1, 2].map(() =>
        createReceiver({ token, dedup: redisDedupStore(redis.client, { keyPrefix: prefix }) }),
      );
      const signed = delivery();
      expect((await a!.handle(signed, handlers)).status).toBe(200);
      expect((await b!.handle(signed, handlers)).body).toMatchObject({ duplicate: true });
      expect(runs).toBe(1);
    });
  });
});

describe('receiver.handle with the Redis store when Redis is down', () => {
  it('answers 503 Dedup store unavailable, without running the handler, when Redis is unreachable', async () => {
    // A real client whose server is gone: nothing listens on port 1.
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    down.on('error', () => {});
    const errors: unknown[] = [];
    const receiver = createReceiver({ token, dedup: redisDedupStore(down), onError: (error) => errors.push(error) });
    let runs = 0;
    const answer = await receiver.handle(delivery(), { 'article.sync': () => void runs++ });
    expect(answer).toEqual({ status: 503, body: { error: 'Dedup store unavailable' } });
    expect(runs).toBe(0);
    expect(errors).toHaveLength(1);
    down.disconnect();
  });
});
