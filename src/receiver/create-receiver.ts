import { defaultCryptoProvider } from '../crypto/default-provider.js';
import { memoryDedupStore } from '../dedup/memory-store.js';
import type { DedupStore } from '../dedup/store.js';
import type { WebhookEvent } from '../events/types.js';
import { positiveOption } from '../internal/positive.js';
import { errorAnswer, type HandleResult } from './answers.js';
import { handleVerified } from './handle-delivery.js';
import { isThenable, type WebhookHandlers } from './handlers.js';
import { reject } from './hooks.js';
import { setInternals } from './internals.js';
import type { ReceiverOptions } from './options.js';
import { verifyDelivery, type DeliveryInput, type VerifiedDelivery, type VerifyConfig } from './verify-delivery.js';

/** A configured receiver. Create one per endpoint at start-up and reuse it for every request. */
export interface Receiver {
  /**
   * Checks a delivery and returns its typed event, or throws a `WebhookError`. Pure: no
   * dedup, no hooks, so it is safe to call from your own pipeline and tests.
   */
  verify(input: DeliveryInput): Promise<WebhookEvent>;
  /**
   * Verifies, deduplicates and runs the matching handler. Resolves to the answer to send;
   * never rejects for a bad delivery or a failing handler.
   */
  handle(input: DeliveryInput, handlers?: WebhookHandlers): Promise<HandleResult>;
  /** The body size limit, for adapters that stop reading early. */
  readonly maxBodyBytes: number;
}

const encoder = new TextEncoder();

/**
 * Creates a receiver for one webhook endpoint.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN! });
 * const { status, body } = await receiver.handle({ headers: req.headers, body: rawBody }, {
 *   'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
 * });
 * ```
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  const config = resolveConfig(options);
  // The default store shares the receiver's clock, so tests that move `now` move leases and retention too.
  const store: DedupStore | false =
    options.dedup === undefined ? memoryDedupStore({ now: options.now }) : options.dedup;
  const receiver: Receiver = {
    maxBodyBytes: config.maxBodyBytes,
    // Not `async`: on the synchronous path each of these settles in one promise turn.
    verify(input) {
      try {
        const delivery = verifyDelivery(config, input);
        return isThenable(delivery) ? Promise.resolve(delivery).then(eventOf) : Promise.resolve(delivery.event);
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    },
    handle(input, handlers) {
      const refused = (thrown: unknown) => errorAnswer(reject(options, thrown, headersOf(input)));
      try {
        const delivery = verifyDelivery(config, input);
        if (isThenable(delivery))
          return Promise.resolve(delivery).then(
            (verified) => handleVerified(options, store, verified, handlers),
            refused,
          );
        return Promise.resolve(handleVerified(options, store, delivery, handlers));
      } catch (thrown) {
        return Promise.resolve(refused(thrown));
      }
    },
  };
  setInternals(receiver, { options, config });
  return receiver;
}

function eventOf(delivery: VerifiedDelivery): WebhookEvent {
  return delivery.event;
}

/** The headers for the rejection hook; an input whose getter throws was already refused and must not throw again. */
function headersOf(input: unknown): unknown {
  try {
    return (input as Partial<DeliveryInput> | null | undefined)?.headers;
  } catch {
    return undefined;
  }
}

function resolveConfig(options: ReceiverOptions): VerifyConfig {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createReceiver needs an options object: createReceiver({ token: process.env.WEBHOOK_TOKEN })');
  const tokens = typeof options.token === 'string' ? [options.token] : options.token;
  if (
    !Array.isArray(tokens) ||
    tokens.length === 0 ||
    tokens.some((token) => typeof token !== 'string' || token.length === 0)
  ) {
    throw new TypeError(
      'createReceiver: token must be a non-empty string (or a non-empty array of them). Is WEBHOOK_TOKEN set? The token is shown once in Profile Settings → CMS Integration.',
    );
  }
  const crypto = options.crypto ?? defaultCryptoProvider();
  return {
    tokens: tokens.map((token: string) => ({ bytes: encoder.encode(token), hmac: crypto.hmacSha256(token) })),
    toleranceSeconds: positiveOption(options.toleranceSeconds, 300, 'createReceiver: toleranceSeconds'),
    maxBodyBytes: positiveOption(options.maxBodyBytes, 10 * 1024 * 1024, 'createReceiver: maxBodyBytes'),
    now: options.now ?? Date.now,
  };
}
