import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type TokenSourceResult } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';

// Issue 45 defects 5 and 8, issue 46 item 3: what the rotation window logs, what it does not
// keep, and what a disarming edit still processes.

const OLD = 'window-lines-old-token-0123456789';
const NEW = 'window-lines-new-token-9876543210';

/** A logger that keeps its lines by level. */
function lines() {
  const seen = { warn: [] as string[], error: [] as string[] };
  return {
    seen,
    logger: {
      warn: (message: string) => void seen.warn.push(message),
      error: (message: string) => void seen.error.push(message),
    },
  };
}

describe('the rotation window', () => {
  it('says it keeps no more requests once a minute, with a count, not once per request', async () => {
    const time = { now: Date.now() };
    const { seen, logger } = lines();
    const receiver = createReceiver({
      token: () => ({ tokens: [OLD], rotatingUntil: time.now + 3_600_000 }),
      now: () => time.now,
      dedup: memoryDedupStore({ now: () => time.now }),
      maxKeptRequests: 5,
      logger,
    });
    const reused = 'window-lines-reused-junk-token';
    const send = () =>
      receiver.handle(
        signDelivery({ token: reused, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) }),
      );
    for (let i = 0; i < 50; i++) expect((await send()).status).toBe(503);
    const full = () => seen.warn.filter((line) => line.includes('keeps no more requests'));
    expect(full()).toHaveLength(1);
    expect(full()[0]).toContain('1 request(s) answered 503 without being kept');
    time.now += 61_000;
    expect((await send()).status).toBe(503);
    expect(full()).toHaveLength(2);
    expect(full()[1]).toContain('45 request(s) answered 503 without being kept');
  });

  it('logs a planned rotation at warn, never at error', async () => {
    const { seen, logger } = lines();
    const receiver = createReceiver({
      token: [OLD],
      rotatingUntil: new Date(Date.now() + 3_600_000),
      maxKeptRequests: 1,
      logger,
    });
    for (let i = 0; i < 3; i++) {
      const answer = await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }));
      expect(answer.status).toBe(503);
    }
    expect(seen.error).toEqual([]);
    expect(seen.warn.some((line) => line.includes('token_rotating'))).toBe(true);
  });

  it("keeps no request that could never be verified: the rotation check's probe, a bare POST", async () => {
    const dedup = memoryDedupStore();
    const receiver = createReceiver({
      token: [OLD],
      rotatingUntil: new Date(Date.now() + 3_600_000),
      dedup,
      logger: false,
    });
    // What `npx webhook-cms-receiver rotation <url>` sends: a test event with no delivery id.
    const probe = signDelivery({ token: 'rotation-check-0000', payload: testPayload(), deliveryId: null });
    expect((await receiver.handle(probe)).status).toBe(503);
    const empty = signDelivery({ token: NEW, payload: testPayload() });
    expect((await receiver.handle({ headers: empty.headers, body: '' })).status).toBe(503);
    const bare = { headers: { authorization: `Bearer ${NEW}`, 'content-type': 'application/json' }, body: '{}' };
    expect((await receiver.handle(bare)).status).toBe(503);
    expect(await dedup.kept!.list()).toEqual([]);
    // A delivery as the service sends it still is.
    expect((await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }))).status).toBe(503);
    expect(await dedup.kept!.list()).toHaveLength(1);
  });

  it('processes what the new token verifies when one edit adds it and disarms the window', async () => {
    const { seen: logged, logger } = lines();
    let answer: TokenSourceResult = { tokens: [OLD], rotatingUntil: Date.now() + 3_600_000 };
    const receiver = createReceiver({ token: () => answer, tokenCacheMs: 20, logger });
    const { seen, until, handlers } = eventRecorder();
    const kept = signDelivery({ token: NEW, payload: articleSyncPayload() });
    expect((await receiver.handle(kept, handlers)).status).toBe(503);
    // The user's one edit: the new token in, the window out.
    answer = { tokens: [NEW, OLD] };
    await Promise.race([until(1), new Promise((resolve) => setTimeout(resolve, 1000))]);
    expect(seen.map((event) => event.deliveryId)).toEqual([kept.headers['X-Service-Delivery-Id']]);
    expect(logged.warn.filter((line) => line.includes('no token verified'))).toEqual([]);
  });
});
