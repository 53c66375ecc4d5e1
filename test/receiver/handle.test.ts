import { describe, expect, it, vi } from 'vitest';
import { createReceiver, memoryDedupStore, type DedupStore, type ReceiverSettings } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_handle_test_token';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const receiverWith = (options: Partial<ReceiverSettings> = {}) => createReceiver({ token, ...options });
const sync = (deliveryId = 'd-1', timestamp?: number) =>
  signDelivery({ token, payload: articleSyncPayload(), deliveryId, ...(timestamp ? { timestamp } : {}) });

describe('handle()', () => {
  it('runs the handler for its event and answers published_url', async () => {
    const answer = await receiverWith().handle(sync(), {
      'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
    });
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips' } });
  });

  it('acknowledges an event without a handler', async () => {
    expect(await receiverWith().handle(signDelivery({ token, payload: articleTrashPayload() }), {})).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(await receiverWith().handle(signDelivery({ token, payload: testPayload() }))).toEqual({
      status: 200,
      body: { ok: true },
    });
  });

  it('ignores a publishedUrl that is not a string', async () => {
    const answer = await receiverWith().handle(sync(), {
      'article.sync': () => ({ publishedUrl: 42 as unknown as string }),
    });
    expect(answer.body).toEqual({ ok: true });
  });

  it('answers a redelivery of a handled id with the stored response and duplicate: true, without running the handler', async () => {
    const receiver = receiverWith();
    const handler = vi.fn(() => ({ publishedUrl: 'https://blog.example.com/a' }));
    await receiver.handle(sync('d-1', Math.floor(Date.now() / 1000) - 10), { 'article.sync': handler });
    const again = await receiver.handle(sync('d-1'), { 'article.sync': handler });
    expect(again).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://blog.example.com/a', duplicate: true },
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs the handler once for 50 concurrent copies of one delivery; the others get 409 or the duplicate answer', async () => {
    const receiver = receiverWith();
    const gate = deferred();
    const handler = vi.fn(async () => {
      await gate.promise;
      return { publishedUrl: 'https://blog.example.com/once' };
    });
    const now = Math.floor(Date.now() / 1000);
    const copies = Array.from({ length: 50 }, (_, i) =>
      receiver.handle(sync('d-concurrent', now - (i % 5)), { 'article.sync': handler }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    gate.resolve();
    const answers = await Promise.all(copies);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(answers.filter((a) => a.status === 200 && !('duplicate' in a.body))).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(49);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(answers.find((a) => a.status === 409)?.body).toEqual({ error: 'Delivery in progress' });
  });

  it('answers 500 Handler failed when the handler throws, tells onError, and runs it again on the retry', async () => {
    const onError = vi.fn();
    const receiver = receiverWith({ onError });
    let calls = 0;
    const handler = () => {
      calls += 1;
      if (calls === 1) throw new Error('database is down: postgres://user:secret@db');
      return { publishedUrl: 'https://blog.example.com/retried' };
    };
    const failed = await receiver.handle(sync('d-retry'), { 'article.sync': handler });
    expect(failed).toEqual({ status: 500, body: { error: 'Handler failed' } });
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('database is down') }),
      expect.objectContaining({ type: 'article.sync' }),
    );
    const retried = await receiver.handle(sync('d-retry'), { 'article.sync': handler });
    expect(retried).toEqual({ status: 200, body: { ok: true, published_url: 'https://blog.example.com/retried' } });
    expect(calls).toBe(2);
  });

  it('runs byte-identical deliveries under three ids three times: sync, trash, sync in one second (v2, no signature ledger)', async () => {
    const receiver = receiverWith();
    const runs: string[] = [];
    const handlers = {
      'article.sync': () => void runs.push('sync'),
      'article.trash': () => void runs.push('trash'),
    };
    const timestamp = Math.floor(Date.now() / 1000);
    const syncPayload = articleSyncPayload({ article: { id: 'art-identical' } });
    const trashPayload = articleTrashPayload({ article: { id: 'art-identical' } });
    const syncBytes = JSON.stringify(syncPayload);
    const first = signDelivery({ token, payload: syncBytes, deliveryId: 'id-1', timestamp });
    const trash = signDelivery({ token, payload: trashPayload, deliveryId: 'id-2', timestamp });
    const again = signDelivery({ token, payload: syncBytes, deliveryId: 'id-3', timestamp });
    expect(again.headers['X-Service-Signature']).toBe(first.headers['X-Service-Signature']);
    for (const delivery of [first, trash, again]) {
      expect(await receiver.handle(delivery, handlers)).toEqual({ status: 200, body: { ok: true } });
    }
    expect(runs).toEqual(['sync', 'trash', 'sync']);
  });

  it('lets two users sign the same payload in the same second without colliding', async () => {
    const receiver = receiverWith();
    const handler = vi.fn();
    const payload = JSON.stringify(articleSyncPayload({ article: { id: 'shared' } }));
    const timestamp = Math.floor(Date.now() / 1000);
    await receiver.handle(signDelivery({ token, payload, timestamp }), { 'article.sync': handler });
    await receiver.handle(signDelivery({ token, payload, timestamp }), { 'article.sync': handler });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('runs the handler every time when dedup is false', async () => {
    const receiver = receiverWith({ dedup: false });
    const handler = vi.fn();
    const delivery = sync('d-nodedup');
    await receiver.handle(delivery, { 'article.sync': handler });
    await receiver.handle(delivery, { 'article.sync': handler });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('uses the given store, and answers 503 without running the handler when it fails', async () => {
    const broken: DedupStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
      complete: () => undefined,
      release: () => undefined,
    };
    const onError = vi.fn();
    const handler = vi.fn();
    const answer = await receiverWith({ dedup: broken, onError }).handle(sync(), { 'article.sync': handler });
    expect(answer).toEqual({ status: 503, body: { error: 'Dedup store unavailable' } });
    expect(handler).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ code: 'dedup_unavailable' }),
      expect.objectContaining({ type: 'article.sync' }),
    );
  });

  it('answers 503 even when the store fails with a value that cannot be turned into text', async () => {
    const unprintable = Object.create(null) as object;
    const broken: DedupStore = {
      claim: () => Promise.reject(unprintable),
      complete: () => undefined,
      release: () => undefined,
    };
    expect(await receiverWith({ dedup: broken }).handle(sync(), {})).toEqual({
      status: 503,
      body: { error: 'Dedup store unavailable' },
    });
  });

  it('still answers 200 when recording the success fails, and reports it to onError', async () => {
    const store = memoryDedupStore();
    const flaky: DedupStore = {
      ...store,
      claim: (c) => store.claim(c),
      complete: () => Promise.reject(new Error('write failed')),
    };
    const onError = vi.fn();
    const answer = await receiverWith({ dedup: flaky, onError }).handle(sync(), {});
    expect(answer.status).toBe(200);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('write failed') }),
      expect.anything(),
    );
  });

  it('tells onRejected the internal reason while the answer carries only the public text', async () => {
    const onRejected = vi.fn();
    const delivery = sync('d-stale', Math.floor(Date.now() / 1000) - 301);
    const answer = await receiverWith({ onRejected }).handle(delivery, {});
    expect(answer).toEqual({ status: 403, body: { error: 'Request expired' } });
    const [error, info] = onRejected.mock.calls[0]!;
    expect(error).toMatchObject({ code: 'request_expired', status: 403 });
    expect(info).toEqual({
      reason: expect.stringMatching(/30[12] s old; tolerance is 300 s/),
      deliveryId: 'd-stale',
      eventHeader: 'article.sync',
    });
  });

  it('answers the same whatever a hook throws', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const throwing = () => {
      throw new Error('hook bug');
    };
    const receiver = receiverWith({ onRejected: throwing, onDuplicate: throwing, onError: throwing });
    expect((await receiver.handle({ headers: {}, body: '' }, {})).status).toBe(401);
    const delivery = sync('d-hooks');
    expect((await receiver.handle(delivery, { 'article.sync': throwing })).status).toBe(500);
    expect((await receiver.handle(delivery, {})).status).toBe(200);
    expect((await receiver.handle(delivery, {})).body).toMatchObject({ duplicate: true });
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/hook threw[\s\S]*Error: hook bug/));
    error.mockRestore();
  });

  it('never rejects for garbage input', async () => {
    const receiver = receiverWith();
    for (const input of [undefined, null, 42, 'x', {}, { headers: 5, body: {} }, { headers: [], body: [] }]) {
      const answer = await receiver.handle(input as never, {});
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
  });

  it('passes each handler its narrowed event type', async () => {
    const seen: [string, string][] = [];
    const receiver = receiverWith();
    await receiver.handle(sync(), { 'article.sync': (e) => void seen.push([e.type, e.article.slug]) });
    await receiver.handle(signDelivery({ token, payload: articleTrashPayload() }), {
      'article.trash': (e) => void seen.push([e.type, e.article.slug]),
    });
    expect(seen).toEqual([
      ['article.sync', 'ten-seo-tips'],
      ['article.trash', 'ten-seo-tips'],
    ]);
  });
});

describe('createReceiver()', () => {
  it.each([
    ['a missing token', { token: undefined }],
    ['an empty token', { token: '' }],
    ['an empty token list', { token: [] }],
    ['an empty token among others', { token: ['a', ''] }],
  ])('refuses %s with an error that says where the token comes from', (_what, options) => {
    expect(() => createReceiver(options as never)).toThrow(/WEBHOOK_TOKEN/);
  });

  it.each([
    ['toleranceSeconds', { toleranceSeconds: 0 }],
    ['maxBodyBytes', { maxBodyBytes: -5 }],
  ])('refuses a non-positive %s', (name, options) => {
    expect(() => createReceiver({ token, ...options })).toThrow(new RegExp(name));
  });

  it('does not mutate its options', () => {
    const options = Object.freeze({ token: Object.freeze(['a', 'b']) as readonly string[], toleranceSeconds: 60 });
    expect(() => createReceiver(options)).not.toThrow();
  });
});
