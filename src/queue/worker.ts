import type { DedupStore } from '../dedup/store.js';
import { isWebhookError, WebhookError } from '../errors/webhook-error.js';
import { parseEvent } from '../events/parse-event.js';
import type { WebhookEvent } from '../events/types.js';
import { describeThrown } from '../internal/describe.js';
import { isThenable } from '../internal/maybe.js';
import { positiveOption } from '../internal/positive.js';
import type { HandlerContext, WebhookHandlers } from '../receiver/handlers.js';
import { type Logger, receiverLog } from '../receiver/logger.js';
import type { DuplicateInfo, ReceiverOptions, StaleInfo } from '../receiver/options.js';
import { createPipeline } from '../receiver/pipeline.js';
import { GuardedTrace, tracedHandlers } from '../receiver/guarded-trace.js';
import type { Instrumentation } from '../receiver/instrumentation.js';
import type { JobResult, QueuedDelivery } from '../receiver/queue-types.js';
import { isJobFailure, JobFailure, type JobSource, type SourceJob } from './job-source.js';
import { type RetryOptions, retryDelayMs, retryPolicy } from './retry.js';

/**
 * What a worker's handlers get besides the event: the engine's `job`, the deadline's `signal`,
 * and `tx` with a transactional store.
 */
export interface WorkerContext<J = unknown> extends HandlerContext {
  /** The engine's job (a BullMQ `Job`, a pg-boss job). */
  job: J;
}

/** What `onError` learns about a worker failure. */
export interface WorkerErrorInfo<J = unknown> {
  /** The typed event; null when the job's data could not be read back into one. */
  event: WebhookEvent | null;
  job: J;
  /** The run this happened in (1-based). */
  attempt: number;
  /**
   * True when the job failed for good (a fatal error, or its last attempt) and went to the
   * engine's dead-letter list. False for a problem that did not fail the job, such as a lease
   * lost to another worker or a store that failed to record a finished job.
   */
  deadLettered: boolean;
}

/**
 * Options of {@link startWorker}. `C` is the handlers' context as the store gives it, such as
 * `{ tx: TransactionOf<typeof pool> }` with `postgresDedupStore(pool, { transactional: true })`:
 * inferred from handlers typed `WebhookHandlers<C>`, or given as `startWorker<Job, C>(…)`.
 *
 * @example
 * ```ts
 * const options: WorkerOptions = { handlers, dedup: redisDedupStore(redis), ordering: true, concurrency: 4 };
 * ```
 */
export interface WorkerOptions<J = unknown, C extends HandlerContext = HandlerContext> {
  /** The same handlers `handle()` takes; each also gets `context.job`. */
  handlers: WebhookHandlers<C & WorkerContext<J>>;
  /**
   * Where handled deliveries are remembered, so a job the engine runs twice (a killed worker,
   * a stalled job) has its effect once. Any `DedupStore`; with a transactional one
   * (`postgresDedupStore(pool, { transactional: true })`) handlers get `context.tx`. Shared by
   * every worker of the queue. Default none: at-least-once.
   */
  dedup?: DedupStore | false;
  /** Skip article deliveries older than one already applied, as `handle()` does. Needs `dedup`. Default false. */
  ordering?: boolean;
  /** Jobs this worker runs at once. Default 1. */
  concurrency?: number;
  /** Retries: see {@link RetryOptions}. Default 10 attempts, 1 s doubling to 5 minutes, with jitter. */
  retry?: RetryOptions;
  /** How long a handler may run before its `context.signal` is aborted and the run counts as failed. Default 5 minutes. */
  handlerTimeoutMs?: number;
  /**
   * Called when a job is dead-lettered (its retries exhausted, or a fatal error) and for
   * problems that did not fail the job (`info.deadLettered` false). Without it, each is logged.
   */
  onError?: (error: unknown, info: WorkerErrorInfo<J>) => void;
  /** Called when ordering skips a job's delivery as stale. */
  onStale?: (info: StaleInfo) => void;
  /** Called when the dedup store already had the delivery (done) or another worker holds it. */
  onDuplicate?: (info: DuplicateInfo) => void;
  /** Where failures go without `onError`, and retried failures always: `console` by default, or `false`. */
  logger?: Logger | false;
  /**
   * Spans and metrics for each job (`webhook.process`, linked to the receiving span through
   * the context the receiver stored with the job), as `createReceiver({ instrumentation })`:
   * `openTelemetry()` from `webhook-cms-receiver/opentelemetry`, or your own.
   */
  instrumentation?: Instrumentation;
}

/**
 * The `tx` a store's `transact` hands its work, which handlers get as `context.tx`; unknown for
 * a store that does not say (any `DedupStore`, or none).
 */
export type StoreTransaction<D> = D extends { transact?(claim: never, work: (tx: infer Tx) => never): unknown }
  ? Tx
  : unknown;

/**
 * What a store adds to the handlers' context: `{ tx }` typed as its transaction when the store
 * names one, so `startWorker(source, { dedup, handlers })` types `tx` without a type argument.
 */
export type StoreContext<D> = unknown extends StoreTransaction<D> ? unknown : { tx: StoreTransaction<D> };

/**
 * A running worker. `close()` stops taking jobs and resolves once those running have finished.
 *
 * @example
 * ```ts
 * process.on('SIGTERM', () => worker.close().then(() => process.exit(0)));
 * ```
 */
export interface QueueWorker {
  /** Resolves once the source takes jobs; rejects (and is logged) when it could not start. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs the handlers for deliveries a receiver in queue mode enqueued, on any engine with a
 * {@link JobSource} (`bullmqSource`, `pgBossSource`). Each job's typed event is rebuilt with
 * the receiver's own parser and run through the receiver's own pipeline: the same context
 * (`signal` with `handlerTimeoutMs`, `tx` with a transactional store, plus the engine's
 * `job`), the same dedup claims (so a job run twice has its effect once, given `dedup`) and
 * the same ordering. A throw is retried by the engine with capped exponential backoff and
 * jitter; an error with `fatal: true`, or a `WebhookError` with a 4xx status, is not; a job out
 * of attempts goes to the engine's dead-letter list and to `onError`.
 *
 * @example
 * ```ts
 * import { startWorker } from 'webhook-cms-receiver';
 * import { bullmqSource } from 'webhook-cms-receiver/bullmq';
 * const worker = startWorker(bullmqSource({ queueName: 'webhooks', connection }), {
 *   handlers: { 'article.sync': async ({ article }, { signal }) => publish(article, { signal }) },
 *   dedup: redisDedupStore(redis),
 *   ordering: true,
 * });
 * ```
 */
export function startWorker<
  J,
  C extends HandlerContext = HandlerContext,
  D extends DedupStore | false | undefined = DedupStore | false | undefined,
>(source: JobSource<J>, options: WorkerOptions<J, C & StoreContext<D>> & { dedup?: D }): QueueWorker {
  if (typeof source?.start !== 'function' || typeof source.close !== 'function') {
    throw new TypeError('startWorker: source must be a JobSource, such as bullmqSource({ queueName, connection }).');
  }
  if (typeof options !== 'object' || options === null || typeof options.handlers !== 'object') {
    throw new TypeError("startWorker needs { handlers }: startWorker(source, { handlers: { 'article.sync': … } })");
  }
  const retry = retryPolicy(options.retry);
  const concurrency = positiveOption(options.concurrency, 1, 'startWorker: concurrency');
  const log = receiverLog(options.logger);
  // What the receiver's pipeline reports for one event: its onError is how the cause comes back here.
  const reported = new WeakMap<WebhookEvent, unknown[]>();
  const pipelineOptions = {
    token: 'unused: workers do not verify',
    ordering: options.ordering === true,
    handlerTimeoutMs: options.handlerTimeoutMs,
    logger: options.logger,
    onError: (error: unknown, event: WebhookEvent) => reported.get(event)?.push(error),
    onStale: options.onStale,
    onDuplicate: options.onDuplicate,
  } satisfies ReceiverOptions;
  if (pipelineOptions.ordering && !options.dedup) {
    throw new TypeError('startWorker: ordering: true needs a dedup store shared by the workers (dedup: …).');
  }
  const pipeline = createPipeline({ options: pipelineOptions, store: options.dedup ?? false });

  const tell = (error: unknown, info: WorkerErrorInfo<J>): void => {
    if (options.onError) {
      try {
        options.onError(error, info);
      } catch (thrown) {
        log.error('the onError hook threw; the job went on as if it had not.', { err: thrown });
      }
      return;
    }
    const what = info.event ? `${info.event.name} delivery ${info.event.deliveryId ?? '(no delivery id)'}` : 'a job';
    // A job out of attempts had the stack of its failure logged with its first attempt: one line
    // now. A fatal error on a later attempt is a new failure, and a WebhookError has no stack to log.
    const again = info.deadLettered && info.attempt > 1 && !isFatal(error) && !isWebhookError(error);
    const fields = {
      event: info.event?.name,
      deliveryId: info.event?.deliveryId,
      tenant: info.event?.tenant?.id,
      ...(again ? {} : { err: error }),
    };
    const detail = isWebhookError(error) ? `${error.code}: ${error.reason}` : describeThrown(error);
    const outcome = info.deadLettered
      ? `failed for good on attempt ${info.attempt} and was dead-lettered`
      : 'had a problem';
    log.error(
      `worker: ${what} ${outcome}: ${detail}${again ? STACK_LOGGED : ''} (pass onError to startWorker to handle this)`,
      fields,
    );
  };

  const fail = (cause: unknown, info: WorkerErrorInfo<J>): never => {
    tell(cause, info);
    throw new JobFailure(cause, { retry: false });
  };

  /**
   * Another worker holds the delivery's claim: a copy running now, or the claim of a worker
   * killed mid-job until its lease lapses. Nothing failed, so no attempt is used and nothing
   * is logged as an error; the delay grows with the deferrals, up to the retry cap.
   */
  const defer = (event: WebhookEvent, attempt: number, deferrals: number): never => {
    const delayMs = retryDelayMs(retry, attempt + deferrals);
    log.warn(
      `worker: ${event.name} delivery ${event.deliveryId ?? '(no delivery id)'} is held by another worker (a copy ` +
        `running, or the claim of a worker stopped mid-job until its lease lapses); deferred ${delayMs} ms, ` +
        'not counted as an attempt',
      { event: event.name, deliveryId: event.deliveryId, tenant: event.tenant?.id },
    );
    const cause = new Error("another worker holds this delivery (a copy running, or a stopped worker's claim)");
    throw new JobFailure(cause, { retry: true, delayMs, deferred: true });
  };

  const run = async ({
    delivery,
    job,
    attempt,
    deferrals = 0,
    signal,
    completeIn,
  }: SourceJob<J>): Promise<JobResult> => {
    let event: WebhookEvent;
    try {
      event = rebuild(delivery);
    } catch (cause) {
      return fail(cause, { event: null, job, attempt, deadLettered: true });
    }
    if (attempt > retry.attempts) {
      const lapsed = new Error(
        `run ${attempt} of a job allowed ${retry.attempts} attempts: earlier runs lapsed (a worker killed or stalled ` +
          'mid-job) and count as attempts',
      );
      return fail(lapsed, { event, job, attempt, deadLettered: true });
    }
    const errors: unknown[] = [];
    reported.set(event, errors);
    const thrown: { error?: unknown } = {};
    const trace = processTrace(options.instrumentation, delivery);
    trace?.verified(event);
    const handlers = withJob(options.handlers, event, { job, signal, completeIn }, thrown);
    const answer = await pipeline(event, trace ? tracedHandlers(trace, handlers, event) : handlers);
    trace?.endAnswered(answer);
    if (answer.status === 200) {
      for (const error of errors) tell(error, { event, job, attempt, deadLettered: false });
      return answer.body as JobResult;
    }
    if (answer.status === 409) return defer(event, attempt, deferrals);
    const cause =
      thrown.error ?? errors.find(isWebhookError) ?? errors[0] ?? new Error(`the job failed: ${answer.status}`);
    const info = { event, job, attempt, deadLettered: true };
    if (isFatal(cause) || attempt >= retry.attempts) return fail(cause, info);
    const delayMs = retryDelayMs(retry, attempt);
    const detail = isWebhookError(cause) ? `${cause.code}: ${cause.reason}` : describeThrown(cause);
    // The stack once, with the first failed attempt: a job that keeps failing writes one line per attempt after it.
    const first = attempt === 1 || isWebhookError(cause);
    log.warn(
      `worker: ${event.name} delivery ${event.deliveryId ?? '(no delivery id)'} attempt ${attempt} failed, retry in ${delayMs} ms: ${detail}${first ? '' : STACK_LOGGED}`,
      {
        event: event.name,
        deliveryId: event.deliveryId,
        tenant: event.tenant?.id,
        ...(first ? { err: cause } : {}),
      },
    );
    throw new JobFailure(cause, { retry: true, delayMs });
  };

  const running = new Set<Promise<void>>();
  const tracked = (job: SourceJob<J>): Promise<JobResult> => {
    const promise = run(job).catch((error: unknown) => {
      // Anything but a JobFailure is a bug here; the engine still gets a failure it retries.
      throw isJobFailure(error)
        ? error
        : new JobFailure(error, { retry: true, delayMs: retryDelayMs(retry, job.attempt) });
    });
    const settled = promise.then(
      () => {},
      () => {},
    );
    running.add(settled);
    settled.then(() => running.delete(settled));
    return promise;
  };

  let closing: Promise<void> | undefined;
  const started = Promise.resolve().then(() =>
    source.start(tracked, { concurrency, retry, warn: (message) => log.warn(message, {}) }),
  );
  started.catch((error: unknown) => log.error('worker: the job source failed to start', { err: error }));
  const ready = started.then(() => {});
  // Logged above: a caller who never awaits `ready` must not get an unhandled rejection too.
  ready.catch(() => {});
  return {
    ready,
    close() {
      closing ??= (async () => {
        await started.catch(() => {});
        await source.close();
        while (running.size > 0) await Promise.all(running);
      })();
      return closing;
    },
  };
}

/** Said instead of an error's stack on a job's later attempts. */
const STACK_LOGGED = ' (stack logged with attempt 1)';

/** A job's `webhook.process` trace; an instrumentation that throws or declines gives none. */
function processTrace(
  instrumentation: Instrumentation | undefined,
  delivery: QueuedDelivery,
): GuardedTrace | undefined {
  if (!instrumentation) return undefined;
  try {
    const trace = instrumentation.startDelivery({
      kind: 'process',
      receivedAt: delivery.receivedAt,
      carrier: delivery.trace,
    });
    return trace ? new GuardedTrace(trace) : undefined;
  } catch {
    return undefined;
  }
}

/** The typed event, from the job's data, with the receiver's own parser: nothing is verified again. */
function rebuild(delivery: QueuedDelivery): WebhookEvent {
  const { body, deliveryId, tokenIndex, tenant } = (delivery ?? {}) as Partial<QueuedDelivery>;
  const badTenant = tenant !== undefined && (typeof tenant !== 'string' || tenant === '');
  if (typeof body !== 'string' || (deliveryId !== null && typeof deliveryId !== 'string') || badTenant) {
    throw new WebhookError('invalid_payload', 'the job is not a delivery enqueued by createReceiver({ queue })');
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new WebhookError('invalid_payload', "the job's body is not valid JSON");
  }
  const event = parseEvent(json, { deliveryId, tokenIndex: typeof tokenIndex === 'number' ? tokenIndex : 0 });
  // The receiver checked the tenant's token and profile; the worker keeps its state apart by it.
  if (tenant !== undefined) event.tenant = Object.freeze({ id: tenant });
  return event;
}

/**
 * The event's handler with the engine's job added to its context and its throw kept, so the
 * engine is told the handler's own error rather than the answer's public text.
 */
function withJob<J>(
  handlers: WebhookHandlers<WorkerContext<J>>,
  event: WebhookEvent,
  { job, signal, completeIn }: Pick<SourceJob<J>, 'job' | 'signal' | 'completeIn'>,
  thrown: { error?: unknown },
): WebhookHandlers | undefined {
  const handler = (handlers as Record<string, unknown>)[event.type];
  if (typeof handler !== 'function') return undefined;
  const keep = (error: unknown): never => {
    thrown.error = error;
    throw error;
  };
  const wrapped = (payload: WebhookEvent, context: HandlerContext & { job?: J; abort?: (reason: Error) => void }) => {
    context.job = job;
    if (signal) {
      const abort = () => context.abort?.(new Error('the job engine took the job back (its lock was lost)'));
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    }
    try {
      const result = handler.call(undefined, payload, context);
      // Inside the store's transaction, before its commit: the job's completion joins it.
      if (completeIn && context.tx !== undefined) {
        const tx = context.tx;
        return Promise.resolve(result)
          .then(async (value) => {
            await completeIn(tx, resultOf(value));
            return value;
          })
          .then(undefined, keep);
      }
      return isThenable(result) ? Promise.resolve(result).then(undefined, keep) : result;
    } catch (error) {
      return keep(error);
    }
  };
  return { [event.type]: wrapped } as WebhookHandlers;
}

/** The job's result for a handler's return value: its `publishedUrl` (or `published_url`), as `handle()` answers it. */
function resultOf(value: unknown): JobResult {
  const { publishedUrl, published_url } = (typeof value === 'object' && value !== null ? value : {}) as {
    publishedUrl?: unknown;
    published_url?: unknown;
  };
  const url = publishedUrl ?? published_url;
  return typeof url === 'string' ? { ok: true, published_url: url } : { ok: true };
}

/**
 * Errors that no retry can fix: `fatal: true` on the error, or a `WebhookError` with a 4xx
 * meaning (a job that cannot be read as a delivery).
 */
function isFatal(error: unknown): boolean {
  if ((error as { fatal?: unknown } | null)?.fatal === true) return true;
  return isWebhookError(error) && error.status >= 400 && error.status < 500 && error.code !== 'delivery_in_progress';
}
