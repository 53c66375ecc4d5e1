import { createReceiver, memoryDedupStore, type ReceiverSettings } from 'webhook-cms-receiver';
import { articleSyncPayload, type SignDeliveryOptions, signDelivery } from 'webhook-cms-receiver/testing';

/**
 * A receiver in a rotation window, as the kept-request suites set it up: its tokens come from
 * a list the test changes (`tokens.list`), on a clock the test moves (`time.now`), the window
 * ending an hour past that clock, the memory store on the same clock; `more` adds options.
 * `sign` signs a delivery at the test's clock (an article by default, a random delivery id).
 */
export function rotatingReceiver(first: string[], more: Partial<ReceiverSettings> = {}) {
  const tokens = { list: first };
  const time = { now: Date.now() };
  const receiver = createReceiver({
    token: () => ({ tokens: tokens.list, rotatingUntil: time.now + 3_600_000 }),
    now: () => time.now,
    dedup: memoryDedupStore({ now: () => time.now }),
    logger: false,
    ...more,
  });
  const sign = (token: string, options: Partial<Pick<SignDeliveryOptions, 'payload' | 'deliveryId'>> = {}) =>
    signDelivery({
      token,
      payload: options.payload ?? articleSyncPayload(),
      deliveryId: options.deliveryId,
      timestamp: Math.floor(time.now / 1000),
    });
  return { receiver, tokens, time, sign };
}
