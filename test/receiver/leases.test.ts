import { describe, expect, it, vi } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_lease_test_token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('leases while a handler runs (contract v2)', () => {
  it('keeps a 1.2 s handler with a 300 ms lease from running twice: 409 at 0.7 s, then the duplicate answer', async () => {
    const receiver = createReceiver({ token, dedup: memoryDedupStore({ leaseMs: 300 }) });
    let runs = 0;
    const handlers = {
      'article.sync': async () => {
        runs++;
        await sleep(1200);
        return { publishedUrl: 'https://blog.example.com/slow' };
      },
    };
    const payload = articleSyncPayload();
    const copy = () => signDelivery({ token, payload, deliveryId: 'slow-delivery' });
    const first = receiver.handle(copy(), handlers);
    await sleep(700);
    expect(await receiver.handle(copy(), handlers)).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
    expect(await first).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/slow' } });
    expect(await receiver.handle(copy(), handlers)).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://blog.example.com/slow', duplicate: true },
    });
    expect(runs).toBe(1);
  });

  it('tells onError when another request took the delivery over, instead of losing it silently', async () => {
    // A store whose lease is never renewed (no renew) and runs out under a slow handler.
    const store = memoryDedupStore({ leaseMs: 100 });
    const { renew: _none, ...unrenewed } = store;
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: unrenewed, onError });
    let runs = 0;
    const handlers = {
      'article.sync': async () => {
        runs++;
        await sleep(runs === 1 ? 400 : 0);
      },
    };
    const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'taken-over' });
    const first = receiver.handle(delivery, handlers);
    await sleep(200);
    // The lease lapsed; this copy takes the id over and completes first.
    expect((await receiver.handle(delivery, handlers)).status).toBe(200);
    expect((await first).status).toBe(200);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/taken over by another request/);
  });
});
