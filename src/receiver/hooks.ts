import { isWebhookError, WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { headerLookup } from '../input/headers.js';
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

/**
 * Tells the user about a failure the service only sees as a status: through `onError`, or,
 * without one, one `console.error` line, because a silent 500 is a bug. The line names the
 * event and delivery, never the token, a signature or the payload.
 */
export function reportError(options: ReceiverOptions, error: unknown, event: WebhookEvent): void {
  if (options.onError) {
    callHook('onError', options.onError, error, event);
    return;
  }
  const what = `${event.name} delivery ${event.deliveryId ?? '(no delivery id)'}`;
  const detail = isWebhookError(error) ? `${error.code}: ${error.reason}` : describeThrown(error);
  const stack = error instanceof Error && !isWebhookError(error) && error.stack ? `\n${error.stack}` : '';
  console.error(`webhook-cms-receiver: ${what}: ${detail} (pass onError to createReceiver to handle this)${stack}`);
}

/** Turns anything thrown during verification into a WebhookError and tells `onRejected`. */
export function reject(options: ReceiverOptions, thrown: unknown, headers: unknown): WebhookError {
  const error = isWebhookError(thrown)
    ? thrown
    : new WebhookError('internal_error', `verification failed unexpectedly: ${describeThrown(thrown)}`, {
        cause: thrown,
      });
  if (!options.onRejected) return error;
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
