import { describe, expect, it } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { rotatingReceiver } from '../helpers/rotating-receiver.js';

// Requests kept during a rotation window, at their edges: test/rotation covers the window.

const OLD = 'kept-pins-old-token-0123';
const NEW = 'kept-pins-new-token-9876';

describe('kept requests, at their edges', () => {
  it('keeps and later processes a test delivery sent without a delivery id (a header it does not have)', async () => {
    const warnings: string[] = [];
    const {
      receiver,
      tokens,
      time,
      sign: signed,
    } = rotatingReceiver([OLD], {
      logger: { warn: (message: string) => void warnings.push(message), error: () => {} },
    });
    const seen: WebhookEvent[] = [];
    let processed: () => void = () => {};
    const both = new Promise<void>((resolve) => (processed = resolve));
    const handlers = {
      test: (event: WebhookEvent) => {
        seen.push(event);
        if (seen.length === 2) processed();
      },
    };
    const sign = (token: string) => signed(token, { payload: testPayload(), deliveryId: null });
    expect((await receiver.handle(sign(NEW), handlers)).status).toBe(503);
    tokens.list = [NEW, OLD];
    time.now += 600_000;
    expect((await receiver.handle(sign(NEW), handlers)).status).toBe(200);
    await both;
    expect(seen.map((event) => [event.name, event.deliveryId, event.tokenIndex])).toEqual([
      ['test', null, 0],
      ['test', null, 0],
    ]);
    expect(warnings).toEqual([]);
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
