import { bodyBytes } from '../../input/body.js';
import { decodeUtf8 } from '../../input/utf8.js';
import { type ClaimOutcome, type DedupClaim, type DedupStore, okAnswer } from '../../dedup/store.js';
import { tenantScoped } from '../../dedup/tenant-scope.js';
import { WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import { describeThrown } from '../../internal/describe.js';
import { positiveOption } from '../../internal/positive.js';
import { type Answer, errorAnswer } from '../answers.js';
import type { VerifyConfig } from '../config.js';
import { callHook, reportError } from '../hooks.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import type { DeliveryQueue, QueuedDelivery } from '../queue-types.js';
import type { DeliveryInput, KeptInput } from '../verify-delivery.js';

/** The largest `queueWaitMs`: the service gives up on an answer after 10 s. */
const MAX_QUEUE_WAIT_MS = 8000;

/** The default of `enqueueTimeoutMs`: 5 s, so a stuck engine still gets its 503 inside the service's 10 s. */
export const DEFAULT_ENQUEUE_TIMEOUT_MS = 5000;

/**
 * The receiver's claims in queue mode live under this prefix, apart from the worker's claims
 * on the plain delivery id: a worker may share the receiver's store, and must not find its
 * delivery "done" only because it was enqueued.
 */
export const QUEUED_CLAIM_PREFIX = 'queued:';

/** What queue mode's pipeline is built from, once per receiver. */
export interface QueuePipelineOptions {
  options: ReceiverOptions;
  config: VerifyConfig;
  store: DedupStore | false;
  queue: DeliveryQueue;
}

// Frozen: one answer object serves every request.
const QUEUED: Answer = Object.freeze({ status: 200, body: Object.freeze({ ok: true, queued: true } as const) });
const QUEUED_AGAIN: Answer = Object.freeze({
  status: 200,
  body: Object.freeze({ ok: true, queued: true, duplicate: true } as const),
});

/**
 * Queue mode's pipeline: claims the delivery id (under {@link QUEUED_CLAIM_PREFIX}) in the
 * receiver's store, hands the verified delivery to the engine within `enqueueTimeoutMs`, and
 * records it done for the store's retention, which outlives the engine's memory of finished
 * jobs. Handlers given to `handle()` are not run here: workers run them.
 */
export function createQueuePipeline({ options, config, store, queue }: QueuePipelineOptions): Pipeline {
  if (typeof queue?.enqueue !== 'function') {
    throw new TypeError(
      'createReceiver: queue must have an enqueue(delivery, { signal }) method, such as bullmqQueue(queue) ' +
        "from 'webhook-cms-receiver/bullmq' or pgBossQueue(boss, name) from 'webhook-cms-receiver/pg-boss'.",
    );
  }
  if (options.ordering) {
    throw new TypeError(
      'createReceiver: ordering applies where handlers run; in queue mode pass ordering: true to startWorker ' +
        'and leave it off the receiver.',
    );
  }
  const timeoutMs = positiveOption(
    options.enqueueTimeoutMs,
    DEFAULT_ENQUEUE_TIMEOUT_MS,
    'createReceiver: enqueueTimeoutMs',
  );
  const waitMs = options.queueWaitMs ?? 0;
  const waitFits = typeof waitMs === 'number' && waitMs >= 0 && waitMs <= MAX_QUEUE_WAIT_MS;
  if (!waitFits || (waitMs > 0 && waitMs + timeoutMs >= 10_000)) {
    throw new RangeError(
      `createReceiver: queueWaitMs must be a number from 0 to ${MAX_QUEUE_WAIT_MS}, and with enqueueTimeoutMs under ` +
        `the service's 10 s wait; got ${String(options.queueWaitMs)}.`,
    );
  }
  if (waitMs > 0 && typeof queue.waitForResult !== 'function') {
    throw new TypeError(
      'createReceiver: queueWaitMs needs a queue that can wait for a job (waitForResult); this one cannot.',
    );
  }

  /** Hybrid answers: the handler's own answer when it finished in time, else `queued`. */
  const answerFor = async (delivery: QueuedDelivery, duplicate: boolean): Promise<Answer> => {
    if (waitMs === 0 || duplicate) return duplicate ? QUEUED_AGAIN : QUEUED;
    const result = await Promise.resolve()
      .then(() => queue.waitForResult!(delivery, { timeoutMs: waitMs }))
      .catch(() => undefined);
    if (result?.ok !== true) return QUEUED;
    return { status: 200, body: okAnswer(typeof result.published_url === 'string' ? result.published_url : undefined) };
  };

  const failed = (event: WebhookEvent, error: WebhookError): Answer => {
    reportError(options, error, event);
    return errorAnswer(error);
  };

  /** Resolves to whether the engine called it a duplicate; rejects with a queue_unavailable error. */
  const enqueue = async (delivery: QueuedDelivery): Promise<boolean> => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new WebhookError(
          'queue_unavailable',
          `the queue did not take the delivery within enqueueTimeoutMs (${timeoutMs} ms)`,
        );
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      const result = await Promise.race([
        Promise.resolve().then(() => queue.enqueue(delivery, { signal: controller.signal })),
        expired,
      ]);
      return result?.duplicate === true;
    } catch (cause) {
      if (cause instanceof WebhookError && cause.code === 'queue_unavailable') throw cause;
      throw new WebhookError('queue_unavailable', `the queue failed to take the delivery: ${describeThrown(cause)}`, {
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
  };

  const unclaimed = async (event: WebhookEvent, delivery: QueuedDelivery): Promise<Answer> => {
    let duplicate: boolean;
    try {
      duplicate = await enqueue(delivery);
    } catch (error) {
      return failed(event, error as WebhookError);
    }
    return answerFor(delivery, duplicate);
  };

  const claimed = async (event: WebhookEvent, delivery: QueuedDelivery, dedup: DedupStore): Promise<Answer> => {
    const claim: DedupClaim = { deliveryId: QUEUED_CLAIM_PREFIX + tenantScoped(event.tenant?.id, event.deliveryId!) };
    let outcome: ClaimOutcome;
    try {
      outcome = await dedup.claim(claim);
    } catch (cause) {
      const reason = `the dedup store failed to claim: ${describeThrown(cause)}`;
      return failed(event, new WebhookError('dedup_unavailable', reason, { cause }));
    }
    if (outcome.state !== 'claimed') {
      const inProgress = outcome.state === 'in-progress';
      callHook(options, 'onDuplicate', options.onDuplicate, { deliveryId: event.deliveryId!, inProgress, event });
      if (!inProgress) return QUEUED_AGAIN;
      return errorAnswer(new WebhookError('delivery_in_progress', 'another copy of this delivery is being enqueued'));
    }
    if (outcome.warning) reportError(options, outcome.warning, event);
    let duplicate: boolean;
    try {
      duplicate = await enqueue(delivery);
    } catch (error) {
      // Freed, so the service's retry enqueues it again; a job the engine added late is found by its id.
      await Promise.resolve()
        .then(() => dedup.release(claim, outcome.lease))
        .catch((cause: unknown) => {
          reportError(options, new Error(`the dedup store failed to release: ${describeThrown(cause)}`), event);
        });
      return failed(event, error as WebhookError);
    }
    try {
      await dedup.complete(claim, outcome.lease, okAnswer());
    } catch (cause) {
      // The job is in the engine; only the redelivery shortcut is lost, and the engine's job id still holds.
      reportError(
        options,
        new Error(`the dedup store failed to record the enqueued delivery: ${describeThrown(cause)}`),
        event,
      );
    }
    return answerFor(delivery, duplicate);
  };

  return (event, _handlers, input, trace) => {
    const delivery: QueuedDelivery = {
      body: bodyText(input, config.maxBodyBytes),
      deliveryId: event.deliveryId,
      timestamp: event.timestamp,
      event: event.name,
      tokenIndex: event.tokenIndex,
      // A kept request (rotation window) was received when it first arrived, not when it was let out.
      receivedAt: (input as Partial<KeptInput> | undefined)?.receivedAt ?? config.now(),
    };
    if (event.tenant) delivery.tenant = event.tenant.id;
    if (trace) {
      const carrier: Record<string, string> = {};
      trace.inject(carrier);
      if (Object.keys(carrier).length > 0) delivery.trace = carrier;
    }
    // Test and unknown events may come without an id: the engine gets them without dedup.
    if (!store || event.deliveryId === null) return unclaimed(event, delivery);
    return claimed(event, delivery, store);
  };
}

/** The verified body as text: verification already checked it is UTF-8 JSON under the limit. */
function bodyText(input: DeliveryInput | undefined, maxBodyBytes: number): string {
  const bytes = bodyBytes(input?.body, maxBodyBytes);
  const text = bytes && decodeUtf8(bytes);
  if (text === undefined) throw new TypeError('queue mode: the verified body could not be read again');
  return text;
}
