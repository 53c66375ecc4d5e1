import { describe, expect, it, vi } from 'vitest';
import { createReceiver, isWebhookError, memoryDedupStore, type WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_deadline_test_token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('handler deadline (contract v3)', () => {
  it('aborts a handler that never settles, answers 500, tells onError handler_timeout and lets the retry run', async () => {
    const onError = vi.fn();
    // A short lease, so a keeper that went on renewing after the deadline would be seen holding the id.
    const receiver = createReceiver({
      token,
      handlerTimeoutMs: 300,
      dedup: memoryDedupStore({ leaseMs: 150 }),
      onError,
    });
    const signals: AbortSignal[] = [];
    let runs = 0;
    const handlers: WebhookHandlers = {
      'article.sync': (_event, { signal }) => {
        runs++;
        signals.push(signal);
        // The first run never settles; the retry returns at once.
        return runs === 1 ? new Promise(() => {}) : { publishedUrl: 'https://blog.example.com/late' };
      },
    };
    const payload = articleSyncPayload();
    const copy = () => signDelivery({ token, payload, deliveryId: 'hung-delivery' });
    const started = Date.now();
    expect(await receiver.handle(copy(), handlers)).toEqual({ status: 500, body: { error: 'Handler failed' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(signals[0]?.aborted).toBe(true);
    expect(onError).toHaveBeenCalledTimes(1);
    const [error] = onError.mock.calls[0]!;
    expect(isWebhookError(error) && error.code).toBe('handler_timeout');
    expect(signals[0]?.reason).toBe(error);
    // Wait past several lease renewals: a keeper still renewing would hold the claim.
    await sleep(400);
    expect(await receiver.handle(copy(), handlers)).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://blog.example.com/late' },
    });
    expect(runs).toBe(2);
    expect(signals[1]?.aborted).toBe(false);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('releases the delivery at once, so a retry right after the deadline runs instead of meeting a 409', async () => {
    const receiver = createReceiver({ token, handlerTimeoutMs: 100, onError: () => {} });
    let runs = 0;
    const handlers: WebhookHandlers = {
      'article.sync': () => {
        runs++;
        return runs === 1 ? new Promise(() => {}) : undefined;
      },
    };
    const payload = articleSyncPayload();
    const copy = () => signDelivery({ token, payload, deliveryId: 'released' });
    expect((await receiver.handle(copy(), handlers)).status).toBe(500);
    expect(await receiver.handle(copy(), handlers)).toEqual({ status: 200, body: { ok: true } });
  });

  it('gives every handler a signal, not aborted while it runs within the deadline, synchronous handlers too', async () => {
    const receiver = createReceiver({ token });
    const seen: boolean[] = [];
    await receiver.handle(signDelivery({ token, payload: testPayload() }), {
      test: (_event, { signal }) => void seen.push(signal instanceof AbortSignal && !signal.aborted),
    });
    await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {
      'article.sync': async (_event, { signal }) => {
        await sleep(10);
        seen.push(signal instanceof AbortSignal && !signal.aborted);
      },
    });
    expect(seen).toEqual([true, true]);
  });

  it('logs a timed-out handler once without onError, naming handler_timeout and never the token', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const receiver = createReceiver({ token, handlerTimeoutMs: 50 });
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {
        'article.sync': () => new Promise(() => {}),
      });
      expect(errors).toHaveBeenCalledTimes(1);
      const line = errors.mock.calls[0]!.join(' ');
      expect(line).toContain('handler_timeout');
      expect(line).not.toContain(token);
    } finally {
      errors.mockRestore();
    }
  });

  it.each([0, -1, Number.NaN])('refuses handlerTimeoutMs %s at start-up, naming the option', (handlerTimeoutMs) => {
    expect(() => createReceiver({ token, handlerTimeoutMs })).toThrow(/handlerTimeoutMs must be a positive number/);
  });
});
