import { describe, expect, it, vi } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_lease_keeper_token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (deliveryId: string) => signDelivery({ token, payload: articleSyncPayload(), deliveryId });
const slowHandler = (ms: number) => ({
  'article.sync': () => sleep(ms).then(() => ({ publishedUrl: 'https://x/slow' })),
});

/** The memory store with its renew replaced; its claim, complete and release stay real. */
function storeWithRenew(renew: NonNullable<DedupStore['renew']>, leaseMs = 30): DedupStore {
  return { ...memoryDedupStore({ leaseMs }), renew };
}

describe('the lease keeper (renewing a claim while a slow handler runs)', () => {
  it('renews about every third of the lease while the handler runs, and stops once it finished', async () => {
    const inner = memoryDedupStore({ leaseMs: 60 });
    const renew = vi.fn(inner.renew!);
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: { ...inner, renew }, onError });
    const answer = await receiver.handle(delivery('renewed'), slowHandler(150));
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://x/slow' } });
    const during = renew.mock.calls.length;
    expect(during).toBeGreaterThanOrEqual(2);
    await sleep(120);
    expect(renew).toHaveBeenCalledTimes(during);
    expect(onError).not.toHaveBeenCalled();
  });

  it('does not renew at all for a handler that finishes synchronously', async () => {
    const renew = vi.fn(() => true);
    const receiver = createReceiver({ token, dedup: storeWithRenew(renew, 3) });
    expect((await receiver.handle(delivery('sync'), { 'article.sync': () => undefined })).status).toBe(200);
    await sleep(30);
    expect(renew).not.toHaveBeenCalled();
  });

  it('renews with the claim and lease the store gave', async () => {
    const inner = memoryDedupStore({ leaseMs: 30 });
    const claim = vi.fn(inner.claim);
    const renew = vi.fn(inner.renew!);
    const receiver = createReceiver({ token, dedup: { ...inner, claim, renew } });
    await receiver.handle(delivery('which-lease'), slowHandler(60));
    const outcome = claim.mock.results[0]?.value as { lease: string };
    expect(renew.mock.calls[0]).toEqual([{ deliveryId: 'which-lease' }, outcome.lease]);
  });

  it('uses the store’s default lease (60 s) when the store names none, so a short handler is not renewed', async () => {
    const inner = memoryDedupStore();
    const renew = vi.fn(() => true);
    const { leaseMs: _unset, ...store } = { ...inner, renew };
    const receiver = createReceiver({ token, dedup: store });
    expect((await receiver.handle(delivery('default-lease'), slowHandler(80))).status).toBe(200);
    expect(renew).not.toHaveBeenCalled();
  });

  it('tells onError once when the lease was taken over while the handler ran, and still answers the handler’s 200', async () => {
    const onError = vi.fn();
    const renew = vi.fn(() => false);
    const receiver = createReceiver({ token, dedup: storeWithRenew(renew), onError });
    const answer = await receiver.handle(delivery('taken'), slowHandler(120));
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://x/slow' } });
    expect(renew.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, event] = onError.mock.calls[0]!;
    expect(String(error)).toMatch(
      /the lease on delivery taken was taken over by another request while its handler ran; the handler may run twice/,
    );
    expect(event).toMatchObject({ name: 'article.sync', deliveryId: 'taken' });
  });

  it('tells onError once when the store fails to renew (throws or rejects), naming the store’s error', async () => {
    for (const renew of [
      () => {
        throw new Error('renew store down');
      },
      () => Promise.reject(new Error('renew store down')),
    ]) {
      const onError = vi.fn();
      const receiver = createReceiver({ token, dedup: storeWithRenew(renew), onError });
      expect((await receiver.handle(delivery('renew-fails'), slowHandler(120))).status).toBe(200);
      expect(onError).toHaveBeenCalledTimes(1);
      const error = onError.mock.calls[0]![0] as Error;
      expect(error.message).toBe('the dedup store failed to renew a lease: Error: renew store down');
      expect((error.cause as Error).message).toBe('renew store down');
    }
  });

  it('says nothing of a renewal that answers "taken over" only after the handler finished', async () => {
    const onError = vi.fn();
    const renew = vi.fn(() => sleep(100).then(() => false));
    const receiver = createReceiver({ token, dedup: storeWithRenew(renew), onError });
    expect((await receiver.handle(delivery('late-answer'), slowHandler(40))).status).toBe(200);
    expect(renew).toHaveBeenCalled();
    await sleep(200);
    expect(onError).not.toHaveBeenCalled();
  });

  it('keeps a delivery whose lease lapsed during a slow handler from running twice when the store can renew it', async () => {
    // Handler 200 ms, lease 60 ms: without renewal the copy at 120 ms would run it again.
    const receiver = createReceiver({ token, dedup: memoryDedupStore({ leaseMs: 60 }) });
    let runs = 0;
    const handlers = {
      'article.sync': async () => {
        runs++;
        await sleep(200);
      },
    };
    const first = receiver.handle(delivery('held'), handlers);
    await sleep(120);
    expect(await receiver.handle(delivery('held'), handlers)).toEqual({
      status: 409,
      body: { error: 'Delivery in progress' },
    });
    expect((await first).status).toBe(200);
    expect(runs).toBe(1);
  });
});
