import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type WebhookEvent } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// Requests kept during a rotation window, at their edges: test/rotation covers the window.

const OLD = 'kept-pins-old-token-0123';
const NEW = 'kept-pins-new-token-9876';

describe('kept requests, at their edges', () => {
  it('answers a test delivery without a delivery id 503 but keeps none: nothing could tell its retries apart', async () => {
    // The service's deliveries all carry X-Service-Delivery-Id; a request without one is a
    // probe (the `rotation` check's own), and keeping it would only be reported dropped later.
    const warnings: string[] = [];
    const store = memoryDedupStore();
    const tokens = { list: [OLD] };
    const receiver = createReceiver({
      token: () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 }),
      dedup: store,
      logger: { warn: (message: string) => void warnings.push(message), error: () => {} },
    });
    const seen: WebhookEvent[] = [];
    const handlers = { test: (event: WebhookEvent) => void seen.push(event) };
    const sign = (token: string) => signDelivery({ token, payload: testPayload(), deliveryId: null });
    expect((await receiver.handle(sign(NEW), handlers)).status).toBe(503);
    expect(await store.kept!.list()).toEqual([]);
    tokens.list = [NEW, OLD];
    expect((await receiver.handle(sign('kept-pins-unknown-token-5555'), handlers)).status).toBe(503);
    expect((await receiver.handle(sign(NEW), handlers)).status).toBe(200);
    expect(seen.map((event) => [event.name, event.deliveryId, event.tokenIndex])).toEqual([['test', null, 0]]);
    expect(warnings).toEqual([expect.stringContaining('503 token_rotating')]);
  });

  it('keeps a kept request again when its handler fails, and runs it again on a later pass', async () => {
    const tokens = { list: [OLD] };
    const receiver = createReceiver({
      token: () => ({ tokens: tokens.list, rotatingUntil: Date.now() + 3_600_000 }),
      tokenCacheMs: 20,
      onError: () => {},
      logger: false,
    });
    let calls = 0;
    let succeeded: () => void = () => {};
    const retried = new Promise<void>((resolve) => (succeeded = resolve));
    const handlers = {
      test: (event: WebhookEvent) => {
        if (event.deliveryId !== 'kept-failing') return;
        calls++;
        if (calls === 1) throw new Error('the first run fails');
        succeeded();
      },
    };
    const kept = signDelivery({ token: NEW, payload: testPayload(), deliveryId: 'kept-failing' });
    expect((await receiver.handle(kept, handlers)).status).toBe(503);
    tokens.list = [NEW, OLD];
    await retried;
    expect(calls).toBe(2);
  });
});
