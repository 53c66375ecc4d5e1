import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';
import { rotatingReceiver } from '../helpers/rotating-receiver.js';

const OLD = 'kept-old-token-0123456789';
const NEW = 'kept-new-token-9876543210';

describe('requests kept during a rotation window', () => {
  it('are processed once a token verifies them, judged against the time received; the retry is a duplicate', async () => {
    const { receiver, tokens, time, sign } = rotatingReceiver([OLD]);
    const { seen, until, handlers } = eventRecorder();
    const payload = articleSyncPayload();
    const deliveryId = 'kept-1';
    const first = sign(NEW, { payload, deliveryId });
    expect((await receiver.handle(first, handlers)).status).toBe(503);
    expect(seen).toHaveLength(0);
    // Ten minutes later (past the 300 s tolerance) the user updates the secret.
    time.now += 600_000;
    tokens.list = [NEW, OLD];
    const other = sign(NEW);
    expect((await receiver.handle(other, handlers)).status).toBe(200);
    await until(2);
    expect(seen.map((event) => event.deliveryId)).toContain(deliveryId);
    expect(seen.find((event) => event.deliveryId === deliveryId)?.tokenIndex).toBe(0);
    const retry = sign(NEW, { payload, deliveryId });
    expect(await receiver.handle(retry, handlers)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(seen).toHaveLength(2);
  });

  it('are re-checked every tokenCacheMs with no new delivery (a timer that does not hold the process open)', async () => {
    const tokens = { list: [OLD] };
    const receiver = createReceiver({
      token: async () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 }),
      tokenCacheMs: 20,
      logger: false,
    });
    const { seen, until, handlers } = eventRecorder();
    expect((await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }), handlers)).status).toBe(
      503,
    );
    tokens.list = [NEW];
    await until(1);
    expect(seen).toHaveLength(1);
  });

  it('that no token verifies are never processed, and are dropped and counted when the window ends', async () => {
    const time = { now: Date.now() };
    const deadline = time.now + 3_600_000;
    let dropped: (line: string) => void = () => {};
    const droppedLine = new Promise<string>((resolve) => (dropped = resolve));
    const tokens = { list: [OLD] };
    const receiver = createReceiver({
      token: () => ({ tokens: tokens.list, rotatingUntil: deadline }),
      now: () => time.now,
      tokenCacheMs: 20,
      dedup: memoryDedupStore({ now: () => time.now }),
      logger: {
        warn: (message: string) => message.includes('dropped') && dropped(message),
        error: () => {},
      },
    });
    const { seen, handlers } = eventRecorder();
    // Presents NEW but is signed with another key: NEW matches its Bearer, never its signature.
    const forged = signDelivery({ token: 'attacker-key-000', payload: articleSyncPayload() });
    forged.headers.Authorization = `Bearer ${NEW}`;
    expect((await receiver.handle(forged, handlers)).status).toBe(503);
    const unknown = signDelivery({ token: 'never-issued-token', payload: articleSyncPayload() });
    expect((await receiver.handle(unknown, handlers)).status).toBe(503);
    tokens.list = [NEW];
    time.now += 1000;
    const live = signDelivery({ token: NEW, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) });
    expect((await receiver.handle(live, handlers)).status).toBe(200);
    time.now = deadline + 1;
    expect(await droppedLine).toMatch(/1 kept request\(s\) that no token verified were dropped/);
    expect(seen.map((event) => event.deliveryId)).toEqual([live.headers['X-Service-Delivery-Id']]);
  });

  it('are bounded by maxKeptRequests', async () => {
    const tokens = { list: [OLD] };
    const warnings: string[] = [];
    const time = { now: Date.now() };
    const receiver = createReceiver({
      token: () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 }),
      now: () => time.now,
      maxKeptRequests: 2,
      logger: { warn: (message: string) => warnings.push(message), error: () => {} },
    });
    const { seen, until, handlers } = eventRecorder();
    for (let i = 0; i < 3; i++) {
      expect(
        (await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }), handlers)).status,
      ).toBe(503);
    }
    expect(warnings.some((line) => line.includes('keeps no more requests'))).toBe(true);
    tokens.list = [NEW];
    time.now += 1000;
    expect((await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }), handlers)).status).toBe(
      200,
    );
    await until(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(3);
  });
});

describe('an unauthenticated caller gains nothing from the window', () => {
  it('a flood of random tokens: one source read a second, nothing processed, storage bounded, all dropped at the end', async () => {
    const time = { now: Date.now() };
    const deadline = time.now + 3_600_000;
    const reads = { count: 0 };
    const dedup = memoryDedupStore({ now: () => time.now });
    let dropped: (line: string) => void = () => {};
    const droppedLine = new Promise<string>((resolve) => (dropped = resolve));
    const receiver = createReceiver({
      token: () => {
        reads.count++;
        return { tokens: [OLD], rotatingUntil: deadline };
      },
      now: () => time.now,
      dedup,
      maxKeptRequests: 50,
      maxKeptBytes: 1024 * 1024,
      tokenCacheMs: 20,
      logger: { warn: (message: string) => message.includes('dropped') && dropped(message), error: () => {} },
    });
    const { seen, handlers } = eventRecorder();
    const flood = Array.from({ length: 300 }, (_, i) =>
      receiver.handle(signDelivery({ token: `random-${i}-${Math.random()}`, payload: articleSyncPayload() }), handlers),
    );
    const answers = await Promise.all(flood);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([503]));
    // One read before the first check, one re-read for the first unknown token: none for the other 299.
    expect(reads.count).toBeLessThanOrEqual(2);
    expect(await dedup.kept!.list()).toHaveLength(50);
    // A regenerated token arrives: it verifies none of the flood, so nothing runs.
    time.now += 1000;
    expect(seen).toHaveLength(0);
    time.now = deadline + 1;
    await receiver.handle(
      signDelivery({ token: OLD, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) }),
      handlers,
    );
    expect(seen).toHaveLength(1);
    // The first pass past the window drops all 50 and counts them; nothing is left.
    expect(await droppedLine).toContain('50 kept request(s) that no token verified were dropped');
    expect(await dedup.kept!.list()).toHaveLength(0);
  });
});
