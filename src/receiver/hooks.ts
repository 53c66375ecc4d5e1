import { isWebhookError, WebhookError } from '../errors/webhook-error.js';
import { headerLookup } from '../http/headers.js';
import { describeThrown } from '../internal/describe.js';
import type { ReceiverOptions } from './options.js';

/**
 * Calls a user hook. A hook that throws must not change the answer to the service, so its
 * error is reported on the console and dropped.
 */
export function callHook<A extends unknown[]>(
  name: string,
  hook: ((...args: A) => void) | undefined,
  ...args: A
): void {
  if (!hook) return;
  try {
    hook(...args);
  } catch (error) {
    console.error(`webhook-cms-receiver: the ${name} hook threw; the delivery was answered as if it had not.`, error);
  }
}

/** Turns anything thrown during verification into a WebhookError and tells `onRejected`. */
export function reject(options: ReceiverOptions, thrown: unknown, headers: unknown): WebhookError {
  const error = isWebhookError(thrown)
    ? thrown
    : new WebhookError('internal_error', `verification failed unexpectedly: ${describeThrown(thrown)}`, {
        cause: thrown,
      });
  const lookup = lookupSafely(headers);
  callHook('onRejected', options.onRejected, error, {
    reason: error.reason,
    deliveryId: lookup('x-service-delivery-id'),
    eventHeader: lookup('x-service-event'),
  });
  return error;
}

/** Headers whose getters throw already failed verification; reading them again for the hook must not throw too. */
function lookupSafely(headers: unknown): (name: string) => string | null {
  try {
    const lookup = headerLookup(headers);
    return (name) => {
      try {
        return lookup(name) ?? null;
      } catch {
        return null;
      }
    };
  } catch {
    return () => null;
  }
}
