import { describe, expect, it, vi } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_store_outcomes_token';
const sync = (deliveryId: string) => signDelivery({ token, payload: articleSyncPayload(), deliveryId });

describe('what the receiver does with each store outcome', () => {
  it('answers 503 when claim throws synchronously, without running the handler', async () => {
    const onError = vi.fn();
    const store: DedupStore = {
      claim: () => {
        throw new Error('store closed');
      },
      complete: vi.fn(),
      release: vi.fn(),
    };
    const handler = vi.fn();
    expect(
      await createReceiver({ token, dedup: store, onError }).handle(sync('sync-throw'), { 'article.sync': handler }),
    ).toEqual({
      status: 503,
      body: { error: 'Dedup store unavailable' },
    });
    expect(handler).not.toHaveBeenCalled();
    expect(onError.mock.calls[0]![0].reason).toBe('the dedup store failed to claim: Error: store closed');
  });

  it('completes with the claim, its lease and the answer after a success, and releases after a failure', async () => {
    const inner = memoryDedupStore();
    const complete = vi.fn(inner.complete);
    const release = vi.fn(inner.release);
    const claim = vi.fn(inner.claim);
    const receiver = createReceiver({ token, dedup: { ...inner, claim, complete, release }, onError: () => undefined });
    await receiver.handle(sync('ok'), { 'article.sync': () => ({ publishedUrl: 'https://x/ok' }) });
    const lease = (claim.mock.results[0]!.value as { lease: string }).lease;
    expect(complete.mock.calls).toEqual([[{ deliveryId: 'ok' }, lease, { ok: true, published_url: 'https://x/ok' }]]);
    expect(release).not.toHaveBeenCalled();
    await receiver.handle(sync('fails'), {
      'article.sync': async () => {
        throw new Error('nope');
      },
    });
    const failedLease = (claim.mock.results[1]!.value as { lease: string }).lease;
    expect(release.mock.calls).toEqual([[{ deliveryId: 'fails' }, failedLease]]);
    expect(complete).toHaveBeenCalledTimes(1);
  });

  it('answers the handler’s 500 when release fails too, and tells onError of both', async () => {
    const inner = memoryDedupStore();
    const onError = vi.fn();
    const store = { ...inner, release: () => Promise.reject(new Error('release lost')) };
    const answer = await createReceiver({ token, dedup: store, onError }).handle(sync('release-fails'), {
      'article.sync': () => {
        throw new Error('handler broke');
      },
    });
    expect(answer).toEqual({ status: 500, body: { error: 'Handler failed' } });
    expect(onError.mock.calls.map(([error]) => (error as Error).message)).toEqual([
      'handler broke',
      'the dedup store failed to record the delivery: Error: release lost',
    ]);
  });

  it('tells onError when complete says another request took the delivery over, and only after a success', async () => {
    const inner = memoryDedupStore();
    const onError = vi.fn();
    const store = { ...inner, complete: () => false, release: () => undefined };
    const receiver = createReceiver({ token, dedup: store, onError });
    expect((await receiver.handle(sync('lost'), {})).status).toBe(200);
    expect(onError).toHaveBeenCalledTimes(1);
    expect((onError.mock.calls[0]![0] as Error).message).toMatch(
      /^delivery lost was taken over by another request after its lease lapsed, so its handler may have run twice; raise leaseMs/,
    );
    // A store whose complete answers nothing (void) recorded it: nothing to tell.
    const quiet = vi.fn();
    const voidStore = { ...memoryDedupStore(), complete: () => undefined };
    expect((await createReceiver({ token, dedup: voidStore, onError: quiet }).handle(sync('void'), {})).status).toBe(
      200,
    );
    expect(quiet).not.toHaveBeenCalled();
  });

  it('answers a copy in flight 409 and tells onDuplicate it is in progress; a done copy, that it is not', async () => {
    const onDuplicate = vi.fn();
    const receiver = createReceiver({ token, onDuplicate });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = receiver.handle(sync('dup'), { 'article.sync': () => gate });
    expect(await receiver.handle(sync('dup'), {})).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
    release();
    await first;
    expect(await receiver.handle(sync('dup'), {})).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(onDuplicate.mock.calls.map(([info]) => [info.deliveryId, info.inProgress, info.event.name])).toEqual([
      ['dup', true, 'article.sync'],
      ['dup', false, 'article.sync'],
    ]);
  });

  it('hands a claim’s warning to onError and still runs the handler', async () => {
    const onError = vi.fn();
    const handler = vi.fn();
    const warning = new Error('dropped 3 ids');
    const store: DedupStore = {
      claim: () => ({ state: 'claimed', lease: 'l', warning }),
      complete: () => true,
      release: () => undefined,
    };
    expect(
      (await createReceiver({ token, dedup: store, onError }).handle(sync('warned'), { 'article.sync': handler }))
        .status,
    ).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(warning, expect.objectContaining({ deliveryId: 'warned' }));
  });

  it('works with a store that answers every step asynchronously', async () => {
    const inner = memoryDedupStore();
    const store: DedupStore = {
      claim: async (c) => inner.claim(c),
      complete: async (c, l, a) => inner.complete(c, l, a),
      release: async (c, l) => inner.release(c, l),
    };
    const receiver = createReceiver({ token, dedup: store });
    const handler = vi.fn(() => ({ publishedUrl: 'https://x/async' }));
    expect(await receiver.handle(sync('async'), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://x/async' },
    });
    expect(await receiver.handle(sync('async'), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://x/async', duplicate: true },
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });
});

describe('onRejected', () => {
  it('gets the delivery id and event header, or null for each when missing or unreadable', async () => {
    const onRejected = vi.fn();
    const receiver = createReceiver({ token, onRejected });
    const delivery = sync('rejected-1');
    await receiver.handle({ headers: { ...delivery.headers, Authorization: 'Bearer wrong' }, body: delivery.body });
    await receiver.handle({ headers: { authorization: 'Bearer wrong' }, body: '' });
    const throwing = {
      get() {
        throw new Error('getter broke');
      },
    };
    await receiver.handle({ headers: throwing as never, body: '' });
    expect(onRejected.mock.calls.map(([, info]) => [info.deliveryId, info.eventHeader])).toEqual([
      ['rejected-1', 'article.sync'],
      [null, null],
      [null, null],
    ]);
  });

  it('turns anything thrown during verification into internal_error (500), naming what was thrown', async () => {
    const onRejected = vi.fn();
    const broke = new Error('provider broke');
    const receiver = createReceiver({
      token,
      onRejected,
      crypto: {
        name: 'broken',
        hmacSha256: () => ({
          verify: () => {
            throw broke;
          },
        }),
      },
    });
    expect(await receiver.handle(sync('internal'), {})).toEqual({ status: 500, body: { error: 'Internal error' } });
    expect(onRejected.mock.calls[0]![0]).toMatchObject({
      code: 'internal_error',
      reason: 'verification failed unexpectedly: Error: provider broke',
    });
    // The provider's own error stays reachable, with its stack.
    expect(onRejected.mock.calls[0]![0].cause).toBe(broke);
  });

  it('keeps the store’s own error as the cause of what onError is told', async () => {
    const claimError = new Error('claim lost');
    const completeError = new Error('complete lost');
    const onError = vi.fn();
    const failingClaim = { ...memoryDedupStore(), claim: () => Promise.reject(claimError) };
    await createReceiver({ token, dedup: failingClaim, onError }).handle(sync('cause-claim'), {});
    const failingComplete = { ...memoryDedupStore(), complete: () => Promise.reject(completeError) };
    await createReceiver({ token, dedup: failingComplete, onError }).handle(sync('cause-complete'), {});
    expect(onError.mock.calls.map(([error]) => (error as Error).cause)).toEqual([claimError, completeError]);
  });
});
