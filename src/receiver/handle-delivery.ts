import type { ClaimOutcome, DedupClaim, DedupStore, StoredResponse } from '../dedup/store.js';
import { WebhookError } from '../errors/webhook-error.js';
import { describeThrown } from '../internal/describe.js';
import type { WebhookEvent } from '../events/types.js';
import { errorAnswer, okResponse, type HandleResult } from './answers.js';
import { isThenable, runHandler, type WebhookHandlers } from './handlers.js';
import { callHook } from './hooks.js';
import type { ReceiverOptions } from './options.js';
import { acceptedSignature, type VerifiedDelivery } from './verify-delivery.js';

/**
 * Runs the handler for a verified delivery at most once per delivery id and per signature,
 * following the contract's dedup table. A store that answers synchronously (the memory
 * store) is not awaited, so a delivery costs no more promise turns than its handler needs.
 */
export function handleVerified(
  options: ReceiverOptions,
  store: DedupStore | false,
  delivery: VerifiedDelivery,
  handlers: WebhookHandlers | undefined,
): HandleResult | Promise<HandleResult> {
  const { event } = delivery;
  if (!store) return run(options, event, handlers);
  const claim: DedupClaim = {
    deliveryId: event.deliveryId,
    signature: acceptedSignature(delivery),
    signatureTtlMs: delivery.signatureTtlMs,
  };
  let outcome;
  try {
    outcome = store.claim(claim);
  } catch (cause) {
    return storeFailed(options, event, 'claim', cause);
  }
  if (!isThenable(outcome)) return afterClaim(options, store, claim, outcome, event, handlers);
  return outcome.then(
    (settled) => afterClaim(options, store, claim, settled, event, handlers),
    (cause: unknown) => storeFailed(options, event, 'claim', cause),
  );
}

function afterClaim(
  options: ReceiverOptions,
  store: DedupStore,
  claim: DedupClaim,
  outcome: ClaimOutcome,
  event: WebhookEvent,
  handlers: WebhookHandlers | undefined,
): HandleResult | Promise<HandleResult> {
  if (outcome.state !== 'claimed') {
    const inProgress = outcome.state === 'in-progress';
    callHook('onDuplicate', options.onDuplicate, {
      deliveryId: event.deliveryId,
      matchedBy: outcome.matchedBy,
      inProgress,
      event,
    });
    if (outcome.state === 'in-progress')
      return errorAnswer(new WebhookError('delivery_in_progress', 'another copy of this delivery is being handled'));
    return { status: 200, body: { ...outcome.response, duplicate: true } };
  }
  const { lease } = outcome;
  const answer = run(options, event, handlers);
  return isThenable(answer)
    ? answer.then((settled) => record(options, store, claim, lease, settled, event))
    : record(options, store, claim, lease, answer, event);
}

/** Marks the delivery done after success, frees it after failure; the answer stays the handler's. */
function record(
  options: ReceiverOptions,
  store: DedupStore,
  claim: DedupClaim,
  lease: string,
  answer: HandleResult,
  event: WebhookEvent,
): HandleResult | Promise<HandleResult> {
  // The handler's work is done; the lease runs out on its own, so only telling the user is left.
  const failed = (cause: unknown): HandleResult => {
    callHook(
      'onError',
      options.onError,
      new Error(`the dedup store failed to record the delivery: ${describeThrown(cause)}`, { cause }),
      event,
    );
    return answer;
  };
  let recorded;
  try {
    recorded =
      answer.status === 200 ? store.complete(claim, lease, answer.body as StoredResponse) : store.release(claim, lease);
  } catch (cause) {
    return failed(cause);
  }
  return isThenable(recorded) ? recorded.then(() => answer, failed) : answer;
}

/** The handler's answer, synchronous when the handler is. */
function run(
  options: ReceiverOptions,
  event: WebhookEvent,
  handlers: WebhookHandlers | undefined,
): HandleResult | Promise<HandleResult> {
  const succeeded = (publishedUrl: string | undefined): HandleResult => ({
    status: 200,
    body: okResponse(publishedUrl),
  });
  const failed = (error: unknown): HandleResult => {
    callHook('onError', options.onError, error, event);
    return errorAnswer(new WebhookError('handler_failed', `the ${event.name} handler threw`, { cause: error }));
  };
  let url;
  try {
    url = runHandler(handlers, event);
  } catch (error) {
    return failed(error);
  }
  return isThenable(url) ? Promise.resolve(url).then(succeeded, failed) : succeeded(url);
}

function storeFailed(options: ReceiverOptions, event: WebhookEvent, step: string, cause: unknown): HandleResult {
  const error = new WebhookError('dedup_unavailable', `the dedup store failed to ${step}: ${describeThrown(cause)}`, {
    cause,
  });
  callHook('onError', options.onError, error, event);
  return errorAnswer(error);
}
