import {
  type ClaimOutcome,
  type DedupClaim,
  type DedupStore,
  okAnswer,
  STALE_ANSWER,
  type StoredAnswer,
  type TransactOutcome,
} from '../dedup/store.js';
import { tenantScoped } from '../dedup/tenant-scope.js';
import { isWebhookError, WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { describeThrown } from '../internal/describe.js';
import { andThen, attempt, isThenable, type MaybePromise } from '../internal/maybe.js';
import { type Answer, errorAnswer } from './answers.js';
import { positiveOption } from '../internal/positive.js';
import { DEFAULT_HANDLER_TIMEOUT_MS, DeliveryContext, withDeadline } from './deadline.js';
import { runHandler, type WebhookHandlers } from './handlers.js';
import { callHook, reportError } from './hooks.js';
import { keepLease } from './lease-keeper.js';
import type { ReceiverOptions } from './options.js';
import type { DeliveryInput } from './verify-delivery.js';
import type { GuardedTrace } from './guarded-trace.js';

/**
 * Runs a verified event's handler under the dedup table of the contract. `input` is the
 * delivery as received and `trace` its trace, for queue mode, which hands the raw body and
 * the trace context to the engine.
 */
export type Pipeline = (
  event: WebhookEvent,
  handlers: WebhookHandlers | undefined,
  input?: DeliveryInput,
  trace?: GuardedTrace,
) => MaybePromise<Answer>;

/** What a pipeline is built from, once per receiver. */
export interface PipelineOptions {
  options: ReceiverOptions;
  store: DedupStore | false;
}

/** The rest of a claim's story, once the store answered something other than `claimed`. */
type Settled = Exclude<ClaimOutcome | TransactOutcome, { state: 'claimed' } | { state: 'committed' }>;

/**
 * Builds the handling pipeline once per receiver, with the options and store captured. A
 * store that answers synchronously (the memory store) and a synchronous handler are not
 * awaited, so a delivery costs no more promise turns than it needs.
 */
export function createPipeline({ options, store }: PipelineOptions): Pipeline {
  const timeoutMs = positiveOption(
    options.handlerTimeoutMs,
    DEFAULT_HANDLER_TIMEOUT_MS,
    'createReceiver: handlerTimeoutMs',
  );
  const run = (event: WebhookEvent, handlers: WebhookHandlers | undefined, tx?: unknown) => {
    const context = new DeliveryContext(tx);
    return attempt(
      () =>
        andThen(
          withDeadline(runHandler(handlers, event, context), { timeoutMs, context, name: event.name }),
          succeeded,
        ),
      (cause): Answer => {
        reportError(options, cause, event);
        if (isWebhookError(cause) && cause.code === 'handler_timeout') return errorAnswer(cause);
        return errorAnswer(new WebhookError('handler_failed', `the ${event.name} handler threw`, { cause }));
      },
    );
  };

  if (!store) return run;
  if (options.ordering && store.ordering !== true) {
    throw new TypeError(
      'createReceiver: ordering: true needs a dedup store that supports ordering (memoryDedupStore, redisDedupStore, ' +
        'postgresDedupStore, durableObjectDedupStore); this store does not declare `ordering: true`.',
    );
  }

  const storeFailed = (event: WebhookEvent, step: string, cause: unknown): Answer => {
    const error = new WebhookError('dedup_unavailable', `the dedup store failed to ${step}: ${describeThrown(cause)}`, {
      cause,
    });
    reportError(options, error, event);
    return errorAnswer(error);
  };

  /** Answers a delivery the store already knows: a duplicate, a copy in flight, or a stale one. */
  const settled = (outcome: Settled, event: WebhookEvent): Answer => {
    // Hooks get the ids as sent, not as namespaced for the store in tenant mode.
    const deliveryId = event.deliveryId!;
    if (outcome.state === 'stale') {
      const info = {
        deliveryId,
        articleId: (event as { article: { id: string } }).article.id,
        timestamp: event.timestamp,
        newerTimestamp: outcome.newerTimestamp,
        event,
      };
      callHook(options, 'onStale', options.onStale, info);
      return { status: 200, body: STALE_ANSWER };
    }
    const inProgress = outcome.state === 'in-progress';
    callHook(options, 'onDuplicate', options.onDuplicate, { deliveryId, inProgress, event });
    if (outcome.state === 'in-progress') {
      return errorAnswer(new WebhookError('delivery_in_progress', 'another copy of this delivery is being handled'));
    }
    return { status: 200, body: { ...outcome.answer, duplicate: true as const } };
  };

  /** Marks the delivery done after success, frees it after failure; the answer stays the handler's. */
  const record = (claim: DedupClaim, lease: string, answer: Answer, event: WebhookEvent): MaybePromise<Answer> => {
    const success = answer.status === 200;
    const recorded = (done: boolean | void): Answer => {
      if (success && done === false) {
        const lost = new Error(
          `delivery ${event.deliveryId} was taken over by another request after its lease lapsed, so its handler ` +
            'may have run twice; raise leaseMs or check that lease renewal reaches the store',
        );
        reportError(options, lost, event);
      }
      return answer;
    };
    const failed = (cause: unknown): Answer => {
      // The handler's work is done; the claim runs out on its own, so only telling the user is left.
      const error = new Error(`the dedup store failed to record the delivery: ${describeThrown(cause)}`, { cause });
      reportError(options, error, event);
      return answer;
    };
    return attempt(
      () =>
        andThen(
          success ? store.complete(claim, lease, answer.body as StoredAnswer) : store.release(claim, lease),
          recorded,
        ),
      failed,
    );
  };

  const afterClaim = (claim: DedupClaim, outcome: ClaimOutcome, event: WebhookEvent, handlers?: WebhookHandlers) => {
    if (outcome.state !== 'claimed') return settled(outcome, event);
    const { lease } = outcome;
    if (outcome.warning) reportError(options, outcome.warning, event);
    const answer = run(event, handlers);
    if (!isThenable(answer)) return record(claim, lease, answer, event);
    const keeper = keepLease({
      store,
      claim,
      lease,
      deliveryId: event.deliveryId!,
      onTrouble: (error) => reportError(options, error, event),
    });
    return answer.then((done) => {
      keeper.stop();
      return record(claim, lease, done, event);
    });
  };

  const transact = store.transact?.bind(store);
  /** Transactional stores: the handler runs inside the store's transaction, which also records it. */
  const transacted = async (claim: DedupClaim, event: WebhookEvent, handlers?: WebhookHandlers): Promise<Answer> => {
    let failure: Answer | undefined;
    try {
      const outcome = await transact!(claim, async (tx) => {
        const answer = await run(event, handlers, tx);
        if (answer.status === 200) return answer.body as StoredAnswer;
        failure = answer;
        throw new Error('the handler failed; rolling back');
      });
      return outcome.state === 'committed' ? { status: 200, body: outcome.answer } : settled(outcome, event);
    } catch (cause) {
      return failure ?? storeFailed(event, 'run the delivery in a transaction', cause);
    }
  };

  return (event, handlers) => {
    // Test and unknown events may come without an id: there is nothing to deduplicate them on.
    if (event.deliveryId === null) return run(event, handlers);
    const claim = claimOf(event, options.ordering === true);
    if (transact) return transacted(claim, event, handlers);
    let claimed: MaybePromise<ClaimOutcome>;
    try {
      claimed = store.claim(claim);
    } catch (cause) {
      return storeFailed(event, 'claim', cause);
    }
    // Only the claim's own failure is the store's: what follows answers for itself.
    return andThen(
      claimed,
      (outcome) => afterClaim(claim, outcome, event, handlers),
      (cause) => storeFailed(event, 'claim', cause),
    );
  };
}

/** The store's view of a delivery; in tenant mode its ids are namespaced by the tenant. */
function claimOf(event: WebhookEvent, ordering: boolean): DedupClaim {
  const tenant = event.tenant?.id;
  const deliveryId = tenantScoped(tenant, event.deliveryId!);
  if (!ordering || (event.type !== 'article.sync' && event.type !== 'article.trash')) return { deliveryId };
  return { deliveryId, order: { articleId: tenantScoped(tenant, event.article.id), timestamp: event.timestamp } };
}

function succeeded(publishedUrl: string | undefined): Answer {
  return { status: 200, body: okAnswer(publishedUrl) };
}
