import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

const token = 'redis-test-token';
const delivery = (deliveryId: string = randomUUID()) =>
  signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'ten-seo-tips' } }), deliveryId });

afterEach(() => vi.restoreAllMocks());

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

    it('runs a new delivery and answers a repeat with the stored answer and duplicate: true', async () => {
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
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      expect(await receiver.handle(signed, failing)).toEqual({ status: 500, body: { error: 'Handler failed' } });
      expect((await receiver.handle(signed, handlers)).status).toBe(200);
      expect(runs).toBe(1);
    });

    it('runs sync, trash and a byte-identical sync in the same second under three ids: three handler runs', async () => {
      fresh();
      const timestamp = Math.floor(Date.now() / 1000);
      const article = { id: randomUUID() };
      const sync = articleSyncPayload({ timestamp, article });
      const ran: string[] = [];
      const both: WebhookHandlers = {
        'article.sync': () => void ran.push('sync'),
        'article.trash': () => void ran.push('trash'),
      };
      for (const payload of [sync, articleTrashPayload({ timestamp, article }), sync]) {
        const answer = await receiver.handle(signDelivery({ token, payload, timestamp }), both);
        expect(answer).toEqual({ status: 200, body: { ok: true } });
      }
      expect(ran).toEqual(['sync', 'trash', 'sync']);
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

describe('receiver.handle with the Redis store when Redis cannot be reached', () => {
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

  it('logs one line naming the fix for a node-redis client that was never connected, with the 503', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const neverConnected = createClient({ url: 'redis://127.0.0.1:1' });
    const receiver = createReceiver({ token, dedup: redisDedupStore(neverConnected) });
    const signed = delivery('never-connected');
    let runs = 0;
    expect(await receiver.handle(signed, { 'article.sync': () => void runs++ })).toEqual({
      status: 503,
      body: { error: 'Dedup store unavailable' },
    });
    expect(runs).toBe(0);
    expect(spy).toHaveBeenCalledTimes(1);
    const line = spy.mock.calls[0]!.map(String).join(' ');
    expect(line).toMatch(/article\.sync delivery never-connected: dedup_unavailable: .*not connected/);
    expect(line).toContain('await createClient({ url }).connect()');
    expect(line).not.toContain(token);
    expect(line).not.toContain(signed.headers['X-Service-Signature']!.slice(7));
  });
});
