import type { WebhookErrorCode } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';

/**
 * How a delivery ended, as `webhook.outcome`: `processed` (the handler ran and succeeded, or
 * no handler was set), `duplicate` (answered from the dedup store), `in_progress` (409: another
 * copy is running), `stale` (skipped by `ordering`), `queued` (handed to a queue, queue mode),
 * `refused` (a check failed: 4xx), `failed` (a handler, the store or the host failed: 5xx), and
 * `verified` (the `verifyWebhook` middleware passed the event on; what the route then did is
 * not the receiver's to know).
 *
 * @example
 * ```ts
 * const alerting = (outcome: DeliveryOutcome) => outcome === 'failed';
 * ```
 */
export type DeliveryOutcome =
  | 'processed'
  | 'duplicate'
  | 'in_progress'
  | 'stale'
  | 'queued'
  | 'refused'
  | 'failed'
  | 'verified';

/**
 * What an {@link Instrumentation} learns when a delivery starts, before any check.
 *
 * @example
 * ```ts
 * // In a queue worker, for each job: the job's receipt time and the context the receiver injected.
 * const trace = instrumentation.startDelivery({ kind: 'process', receivedAt: job.receivedAt, carrier: job.trace });
 * ```
 */
export interface DeliveryStart {
  /**
   * `receive` in a receiver (`handle()`, an adapter's admission, `verifyWebhook`): the span
   * `webhook.receive`. `process` in a queue worker, for each job it runs: the span
   * `webhook.process`.
   */
  readonly kind: 'receive' | 'process';
  /**
   * When it arrived, in milliseconds since the epoch, on the receiver's clock (its `now`
   * option). Read it in `startDelivery` if you need it: the receiver reads its clock only then,
   * since a clock read costs more than a delivery nobody records should.
   */
  readonly receivedAt: number;
  /**
   * Workers only: the trace context the receiving process wrote into the job with
   * {@link DeliveryTrace.inject}, so the worker's span can link to the one that received it.
   */
  readonly carrier?: Readonly<Record<string, string>>;
}

/**
 * How a delivery ended: the outcome, the HTTP status answered and, for a refusal or a
 * failure, the stable error code.
 *
 * @example
 * ```ts
 * const refused: DeliveryEnd = { outcome: 'refused', status: 403, code: 'invalid_signature', deliveryId: 'a1b2' };
 * ```
 */
export interface DeliveryEnd {
  readonly outcome: DeliveryOutcome;
  /**
   * The HTTP status answered (in a worker: the status the same result would have been
   * answered). Absent for `verified`: the host's route answers that one.
   */
  readonly status?: number;
  /** The `WebhookErrorCode` of a refusal, a failure or a 409, when known. */
  readonly code?: WebhookErrorCode;
  /**
   * Refusals only: `X-Service-Delivery-Id` as received, unverified (the service does not sign
   * it), so a refusal can be matched with the service's delivery log. Null when absent.
   */
  readonly deliveryId?: string | null;
}

/**
 * One delivery's trace, from {@link Instrumentation.startDelivery}. The receiver calls, in
 * order: `verifying()` when the body is in hand, `verified(event)` once checks 1 to 7 passed,
 * `runHandler(run)` around the handler (only when one is set for the event), and `end(…)` once,
 * with the answer. A refusal skips straight to `end`. A method that throws is ignored: telemetry
 * never changes an answer.
 *
 * Queue mode: the receiving process calls `inject(carrier)` before it enqueues and stores the
 * carrier with the job, then ends with `queued`. A worker (`startWorker({ instrumentation })`)
 * calls, for each job, `startDelivery({ kind: 'process', receivedAt, carrier })` (the span
 * `webhook.process`, linked to the receiving span), `verified(event)` once it rebuilt the event
 * (it never calls `verifying`: nothing is verified there), `runHandler(run)` around the handler,
 * and `end` with `processed`, `duplicate`, `stale` or `failed` and the status the same result
 * would have been answered.
 *
 * @example
 * ```ts
 * const trace: DeliveryTrace = {
 *   verifying() {},
 *   verified(event) { console.log('verified', event.name, event.deliveryId); },
 *   runHandler: (run) => run(),
 *   end({ outcome, status }) { console.log(outcome, status); },
 * };
 * ```
 */
export interface DeliveryTrace {
  /** The body is in hand and verification starts (checks 1 to 7): the start of `webhook.verify.duration`. */
  verifying(): void;
  /** Verification passed; the event is typed and its id known. */
  verified(event: WebhookEvent): void;
  /**
   * Runs the handler: call `run` once, synchronously, and return what it returns (a value or
   * a promise, which may reject), so a span can be active around it. A promise that outlives
   * the answer (a handler past `handlerTimeoutMs`) is ended by `end`'s `handler_timeout`.
   */
  runHandler<T>(run: () => T): T;
  /** Queue mode: writes this delivery's trace context into the job, for the worker's {@link DeliveryStart.carrier}. */
  inject?(carrier: Record<string, string>): void;
  /** The delivery is answered. Called once. */
  end(end: DeliveryEnd): void;
}

/**
 * Where the receiver reports each delivery: spans, metrics, anything. The core defines it
 * and depends on nothing; `webhook-cms-receiver/opentelemetry` implements it on
 * `@opentelemetry/api`. Unset (the default), a delivery costs one property check.
 *
 * @example
 * ```ts
 * const counting: Instrumentation = {
 *   startDelivery: () => ({
 *     verifying() {},
 *     verified() {},
 *     runHandler: (run) => run(),
 *     end: ({ outcome }) => counts.set(outcome, (counts.get(outcome) ?? 0) + 1),
 *   }),
 * };
 * const receiver = createReceiver({ token, instrumentation: counting });
 * ```
 */
export interface Instrumentation {
  /** A delivery arrived; return its trace, or undefined to skip it (nothing recording, say). */
  startDelivery(start: DeliveryStart): DeliveryTrace | undefined;
}
