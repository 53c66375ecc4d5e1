import type { DedupClaim, DedupStore } from '../dedup/store.js';
import { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { errorAnswer, okResponse, type HandleResult } from './answers.js';
import { runHandler, type WebhookHandlers } from './handlers.js';
import { callHook } from './hooks.js';
import type { ReceiverOptions } from './options.js';
import type { VerifiedDelivery } from './verify-delivery.js';

/**
 * Runs the handler for a verified delivery at most once per delivery id and per signature,
 * following the contract's dedup table.
 */
export async function handleVerified(
  options: ReceiverOptions,
  store: DedupStore | false,
  delivery: VerifiedDelivery,
  handlers: WebhookHandlers | undefined,
): Promise<HandleResult> {
  const { event } = delivery;
  if (!store) return run(options, event, handlers);
  const claim: DedupClaim = { deliveryId: event.deliveryId, signature: delivery.signature, signatureTtlMs: delivery.signatureTtlMs };
  let outcome;
  try {
    outcome = await store.claim(claim);
  } catch (cause) {
    return storeFailed(options, event, 'claim', cause);
  }
  if (outcome.state !== 'claimed') {
    const inProgress = outcome.state === 'in-progress';
    callHook('onDuplicate', options.onDuplicate, { deliveryId: event.deliveryId, matchedBy: outcome.matchedBy, inProgress, event });
    if (outcome.state === 'in-progress') return errorAnswer(new WebhookError('delivery_in_progress', 'another copy of this delivery is being handled'));
    return { status: 200, body: { ...outcome.response, duplicate: true } };
  }
  const answer = await run(options, event, handlers);
  try {
    if (answer.status === 200) await store.complete(claim, outcome.lease, answer.body as ReturnType<typeof okResponse>);
    else await store.release(claim, outcome.lease);
  } catch (cause) {
    // The handler's work is done; the lease runs out on its own, so only telling the user is left.
    callHook('onError', options.onError, new Error(`the dedup store failed to record the delivery: ${String(cause)}`, { cause }), event);
  }
  return answer;
}

async function run(options: ReceiverOptions, event: WebhookEvent, handlers: WebhookHandlers | undefined): Promise<HandleResult> {
  try {
    return { status: 200, body: okResponse(await runHandler(handlers, event)) };
  } catch (error) {
    callHook('onError', options.onError, error, event);
    return errorAnswer(new WebhookError('handler_failed', `the ${event.name} handler threw`, { cause: error }));
  }
}

function storeFailed(options: ReceiverOptions, event: WebhookEvent, step: string, cause: unknown): HandleResult {
  const error = new WebhookError('dedup_unavailable', `the dedup store failed to ${step}: ${String(cause)}`, { cause });
  callHook('onError', options.onError, error, event);
  return errorAnswer(error);
}
