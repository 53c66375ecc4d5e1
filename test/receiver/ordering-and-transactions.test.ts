import { describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  type DedupClaim,
  type DedupStore,
  memoryDedupStore,
  type StoredAnswer,
  type TransactOutcome,
} from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_ordering_tx_token';
const now = Math.floor(Date.now() / 1000);
const articleId = '6f0c3c7e-0000-4000-8000-00000000a001';
const sync = (deliveryId: string, timestamp: number) =>
  signDelivery({
    token,
    payload: articleSyncPayload({ timestamp, article: { id: articleId } }),
    deliveryId,
    timestamp,
  });
const trash = (deliveryId: string, timestamp: number) =>
  signDelivery({
    token,
    payload: articleTrashPayload({ timestamp, article: { id: articleId } }),
    deliveryId,
    timestamp,
  });

describe('ordering at receiver level', () => {
  it('refuses ordering: true with a store that does not declare ordering, naming the fix', () => {
    const { ordering: _none, ...plain } = memoryDedupStore();
    for (const dedup of [plain, { ...plain, ordering: false }]) {
      expect(() => createReceiver({ token, ordering: true, dedup })).toThrow(
        /ordering: true needs a dedup store that supports ordering/,
      );
    }
    expect(() => createReceiver({ token, dedup: plain })).not.toThrow();
  });

  it('refuses ordering: true with dedup: false, which would order nothing (contract v5)', () => {
    expect(() => createReceiver({ token, ordering: true, dedup: false })).toThrow(
      /ordering: true keeps its marks in the dedup store, and dedup: false turns the store off/,
    );
    expect(() => createReceiver({ token, ordering: false, dedup: false })).not.toThrow();
  });

  it('answers an article delivery older than one applied as stale (200, no handler run) and tells onStale', async () => {
    const onStale = vi.fn();
    const receiver = createReceiver({ token, ordering: true, onStale });
    const handler = vi.fn();
    expect((await receiver.handle(sync('newer', now), { 'article.sync': handler })).status).toBe(200);
    const answer = await receiver.handle(sync('older', now - 10), { 'article.sync': handler });
    expect(answer).toEqual({ status: 200, body: { ok: true, stale: true } });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(onStale).toHaveBeenCalledTimes(1);
    expect(onStale.mock.calls[0]![0]).toMatchObject({
      deliveryId: 'older',
      articleId,
      timestamp: now - 10,
      newerTimestamp: now,
      event: { name: 'article.sync', deliveryId: 'older' },
    });
  });

  it('orders a trash after a sync of the same article: an older trash is stale', async () => {
    const receiver = createReceiver({ token, ordering: true });
    const trashHandler = vi.fn();
    await receiver.handle(sync('sync-1', now), {});
    expect(await receiver.handle(trash('trash-1', now - 5), { 'article.trash': trashHandler })).toEqual({
      status: 200,
      body: { ok: true, stale: true },
    });
    expect(trashHandler).not.toHaveBeenCalled();
  });

  it('runs an older delivery when ordering is off', async () => {
    const receiver = createReceiver({ token });
    const handler = vi.fn();
    await receiver.handle(sync('n', now), { 'article.sync': handler });
    expect(await receiver.handle(sync('o', now - 10), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('claims test events with an id without an article order, and still deduplicates them', async () => {
    const inner = memoryDedupStore();
    const claim = vi.fn(inner.claim);
    const receiver = createReceiver({ token, ordering: true, dedup: { ...inner, claim } });
    const delivery = signDelivery({ token, payload: testPayload(), deliveryId: 'test-with-id' });
    expect(await receiver.handle(delivery, {})).toEqual({ status: 200, body: { ok: true } });
    expect(await receiver.handle(delivery, {})).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(claim.mock.calls[0]).toEqual([{ deliveryId: 'test-with-id' }]);
  });

  it('claims article events with their article and timestamp only when ordering is on', async () => {
    for (const ordering of [true, false]) {
      const inner = memoryDedupStore();
      const claim = vi.fn(inner.claim);
      const receiver = createReceiver({ token, ordering, dedup: { ...inner, claim } });
      await receiver.handle(sync('s', now), {});
      await receiver.handle(trash('t', now), {});
      expect(claim.mock.calls.map(([c]) => c)).toEqual(
        ordering
          ? [
              { deliveryId: 's', order: { articleId, timestamp: now } },
              { deliveryId: 't', order: { articleId, timestamp: now } },
            ]
          : [{ deliveryId: 's' }, { deliveryId: 't' }],
      );
    }
  });

  it('answers 409 to a second delivery of the same article while the first one runs', async () => {
    const receiver = createReceiver({ token, ordering: true });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = receiver.handle(sync('first', now), { 'article.sync': () => gate });
    expect(await receiver.handle(sync('second', now + 1), {})).toEqual({
      status: 409,
      body: { error: 'Delivery in progress' },
    });
    release();
    expect((await first).status).toBe(200);
  });
});

/** A transactional store over the memory store; its claim, complete and release throw if the receiver uses them. */
function transactionalStore(options: { fail?: Error } = {}) {
  const inner = memoryDedupStore();
  const tx = { name: 'the transaction' };
  const unused = () => {
    throw new Error('a transactional store is used through transact only');
  };
  const transact = vi.fn(
    async (claim: DedupClaim, work: (tx: unknown) => Promise<StoredAnswer>): Promise<TransactOutcome> => {
      if (options.fail) throw options.fail;
      const outcome = inner.claim(claim) as Awaited<ReturnType<DedupStore['claim']>>;
      if (outcome.state !== 'claimed') return outcome;
      try {
        const answer = await work(tx);
        inner.complete(claim, outcome.lease, answer);
        return { state: 'committed', answer };
      } catch (error) {
        inner.release(claim, outcome.lease);
        throw error;
      }
    },
  );
  const store: DedupStore = { ordering: true, claim: unused, complete: unused, release: unused, transact };
  return { store, tx, transact };
}

describe('a transactional store at receiver level', () => {
  it('runs the handler inside transact with its transaction, and answers what was committed', async () => {
    const { store, tx, transact } = transactionalStore();
    const receiver = createReceiver({ token, dedup: store });
    const handler = vi.fn((_event: unknown, context: { tx?: unknown }) => {
      expect(context.tx).toBe(tx);
      return { publishedUrl: 'https://x/tx' };
    });
    expect(await receiver.handle(sync('tx-1', now), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://x/tx' },
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(transact.mock.calls[0]![0]).toEqual({ deliveryId: 'tx-1' });
  });

  it('answers a redelivery of a committed delivery as the duplicate, without running the handler', async () => {
    const { store } = transactionalStore();
    const onDuplicate = vi.fn();
    const receiver = createReceiver({ token, dedup: store, onDuplicate });
    const handler = vi.fn(() => ({ publishedUrl: 'https://x/once' }));
    await receiver.handle(sync('tx-dup', now), { 'article.sync': handler });
    expect(await receiver.handle(sync('tx-dup', now), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://x/once', duplicate: true },
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(onDuplicate.mock.calls[0]![0]).toMatchObject({ deliveryId: 'tx-dup', inProgress: false });
  });

  it('answers 500 Handler failed when the handler throws inside the transaction, and runs it again on the retry', async () => {
    const { store } = transactionalStore();
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: store, onError });
    let calls = 0;
    const handler = () => {
      if (++calls === 1) throw new Error('write failed');
      return undefined;
    };
    expect(await receiver.handle(sync('tx-fail', now), { 'article.sync': handler })).toEqual({
      status: 500,
      body: { error: 'Handler failed' },
    });
    expect(onError).toHaveBeenCalledTimes(1);
    expect((onError.mock.calls[0]![0] as Error).message).toBe('write failed');
    expect(await receiver.handle(sync('tx-fail', now), { 'article.sync': handler })).toEqual({
      status: 200,
      body: { ok: true },
    });
  });

  it('answers 503 when transact itself fails, naming the step', async () => {
    const { store } = transactionalStore({ fail: new Error('connection reset') });
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: store, onError });
    const handler = vi.fn();
    expect(await receiver.handle(sync('tx-down', now), { 'article.sync': handler })).toEqual({
      status: 503,
      body: { error: 'Dedup store unavailable' },
    });
    expect(handler).not.toHaveBeenCalled();
    expect(onError.mock.calls[0]![0].reason).toBe(
      'the dedup store failed to run the delivery in a transaction: Error: connection reset',
    );
  });

  it('answers 409 when transact finds a copy in flight, and stale when ordering says so', async () => {
    for (const [outcome, expected] of [
      [{ state: 'in-progress' }, { status: 409, body: { error: 'Delivery in progress' } }],
      [
        { state: 'stale', newerTimestamp: now + 5 },
        { status: 200, body: { ok: true, stale: true } },
      ],
    ] as const) {
      const onStale = vi.fn();
      const store: DedupStore = {
        ordering: true,
        claim: () => ({ state: 'in-progress' }),
        complete: () => undefined,
        release: () => undefined,
        transact: async () => outcome,
      };
      const receiver = createReceiver({ token, dedup: store, ordering: true, onStale });
      expect(await receiver.handle(sync('tx-busy', now), {})).toEqual(expected);
      expect(onStale).toHaveBeenCalledTimes(outcome.state === 'stale' ? 1 : 0);
    }
  });
});
