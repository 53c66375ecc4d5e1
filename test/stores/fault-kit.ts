import { afterEach, beforeEach, expect } from 'vitest';
import type { Receiver, WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, type SignedDelivery, signDelivery } from 'webhook-cms-receiver/testing';

/** The token of every fault test's receiver. */
export const FAULT_TOKEN = 'store-fault-token';

export const UNAVAILABLE = { status: 503, body: { error: 'Dedup store unavailable' } };
export const HANDLED = { status: 200, body: { ok: true } };
export const DUPLICATE = { status: 200, body: { ok: true, duplicate: true } };

/**
 * Records every uncaught exception and unhandled rejection of this process while a test runs,
 * and fails the test when there was one: an `'error'` event nobody listens to would have
 * ended a real host process. (Vitest reports them too, but only at the end of the run.)
 */
export function watchForCrashes(): void {
  const seen: unknown[] = [];
  const record = (error: unknown) => void seen.push(error);
  beforeEach(() => {
    seen.length = 0;
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
  });
  afterEach(async () => {
    // Lets a socket's late 'end' or 'error' arrive before judging.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
    expect(
      seen.map((error) => (error instanceof Error ? error.stack : String(error))),
      'uncaught errors: each one would have crashed the host',
    ).toEqual([]);
  });
}

/** A promise the test resolves by hand: a handler waits on it while the test breaks the store. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** One signed `article.sync` with a fixed delivery id, sent again as the service retries it. */
export function syncDelivery(deliveryId: string): () => SignedDelivery {
  const payload = articleSyncPayload();
  return () => signDelivery({ token: FAULT_TOKEN, deliveryId, payload });
}

/**
 * Retries a delivery after a fault as the service would: the first retry runs the handler
 * exactly once and answers 200, a later copy is answered as a duplicate without running it.
 */
export async function expectRetryRunsOnce(
  receiver: Receiver,
  delivery: () => SignedDelivery,
  handlers: WebhookHandlers,
  runs: () => number,
): Promise<void> {
  const before = runs();
  expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
  expect(runs() - before).toBe(1);
  expect(await receiver.handle(delivery(), handlers)).toEqual(DUPLICATE);
  expect(runs() - before).toBe(1);
}

/** Polls `probe` until it gives a value, for a state another connection must reach first. */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
