import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';
import { rotatingReceiver } from '../helpers/rotating-receiver.js';

// How a receiver hands its kept requests (rotation window) the handlers and finds the ones
// another instance kept: test/rotation covers the window itself.

const OLD = 'kept-setup-old-token-0123';
const NEW = 'kept-setup-new-token-9876';

describe('kept requests and the receiver around them', () => {
  it('are processed with the handlers of the latest handle(), not those of the request that was kept', async () => {
    const { receiver, tokens, time, sign: signed } = rotatingReceiver([OLD]);
    const first = eventRecorder();
    const latest = eventRecorder();
    const sign = (token: string, deliveryId: string) => signed(token, { deliveryId });
    expect((await receiver.handle(sign(NEW, 'kept-h'), first.handlers)).status).toBe(503);
    expect((await receiver.handle(sign(OLD, 'live-1'), latest.handlers)).status).toBe(200);
    // The new token arrives: its first delivery re-reads the source, which lets the kept one out.
    tokens.list = [NEW, OLD];
    time.now += 600_000;
    expect((await receiver.handle(sign(NEW, 'live-2'), latest.handlers)).status).toBe(200);
    await latest.until(3);
    expect(latest.seen.map((event) => event.deliveryId).sort()).toEqual(['kept-h', 'live-1', 'live-2']);
    expect(first.seen).toEqual([]);
  });

  it('a receiver started during a window processes requests another kept in their shared store', async () => {
    const dedup = memoryDedupStore();
    const rotatingUntil = Date.now() + 3_600_000;
    const before = createReceiver({ token: [OLD], rotatingUntil, dedup, logger: false });
    const keptBy = eventRecorder();
    const kept = signDelivery({ token: NEW, payload: articleSyncPayload(), deliveryId: 'kept-elsewhere' });
    expect((await before.handle(kept, keptBy.handlers)).status).toBe(503);
    expect(await dedup.kept!.list()).toHaveLength(1);
    // The new instance knows NEW; its first request, any request, looks at what is kept.
    const after = createReceiver({ token: [NEW, OLD], rotatingUntil, dedup, logger: false });
    const handled = eventRecorder();
    const live = signDelivery({ token: OLD, payload: articleSyncPayload(), deliveryId: 'live-after' });
    expect((await after.handle(live, handled.handlers)).status).toBe(200);
    await handled.until(2);
    expect(handled.seen.map((event) => event.deliveryId).sort()).toEqual(['kept-elsewhere', 'live-after']);
    expect(keptBy.seen).toEqual([]);
  });

  it('keeps requests after verify() read the token source before any handle()', async () => {
    // A request kept by another receiver loads the kept-request code first, so the import of
    // the receiver below settles within a turn of the loop.
    const other = createReceiver({ token: [OLD], rotatingUntil: Date.now() + 3_600_000, logger: false });
    expect((await other.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }), {})).status).toBe(503);
    const { receiver, tokens, time, sign: signed } = rotatingReceiver([OLD]);
    const sign = (token: string, deliveryId: string) => signed(token, { deliveryId });
    // verify() reads the source (its first answer is a change), which loads the kept-request code.
    expect((await receiver.verify(sign(OLD, 'verified-first'))).deliveryId).toBe('verified-first');
    await new Promise((resolve) => setImmediate(resolve));
    const { seen, until, handlers } = eventRecorder();
    expect((await receiver.handle(sign(NEW, 'kept-after-verify'), handlers)).status).toBe(503);
    tokens.list = [NEW, OLD];
    time.now += 600_000;
    expect((await receiver.handle(sign(NEW, 'live'), handlers)).status).toBe(200);
    await until(2);
    expect(seen.map((event) => event.deliveryId).sort()).toEqual(['kept-after-verify', 'live']);
  });
});

describe('what a rotation window keeps', () => {
  it('only requests refused for an unknown token: a bad signature or an old timestamp is not kept', async () => {
    const time = { now: Date.now() };
    const dedup = memoryDedupStore({ now: () => time.now });
    const receiver = createReceiver({
      token: () => ({ tokens: [OLD], rotatingUntil: time.now + 3_600_000 }),
      now: () => time.now,
      dedup,
      logger: false,
    });
    const handlers = { 'article.sync': () => {} };
    const signed = signDelivery({
      token: OLD,
      payload: articleSyncPayload(),
      deliveryId: 'not-kept-1',
      timestamp: Math.floor(time.now / 1000),
    });
    // One byte more than was signed: the token is known, the signature does not match.
    const tampered = { ...signed, body: `${String(signed.body)} ` };
    expect((await receiver.handle(tampered, handlers)).status).toBe(403);
    const stale = signDelivery({
      token: OLD,
      payload: articleSyncPayload(),
      deliveryId: 'not-kept-2',
      timestamp: Math.floor(time.now / 1000) - 3_600,
    });
    expect((await receiver.handle(stale, handlers)).status).toBe(403);
    expect(await dedup.kept!.list()).toEqual([]);
    // The same window keeps a request whose token it does not know yet.
    const unknown = signDelivery({
      token: NEW,
      payload: articleSyncPayload(),
      deliveryId: 'kept-1',
      timestamp: Math.floor(time.now / 1000),
    });
    expect((await receiver.handle(unknown, handlers)).status).toBe(503);
    expect(await dedup.kept!.list()).toHaveLength(1);
  });
});
