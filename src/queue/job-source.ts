import { isWebhookError } from '../errors/webhook-error.js';
import { describeThrown } from '../internal/describe.js';
import type { JobResult, QueuedDelivery } from '../receiver/queue-types.js';
import type { RetryPolicy } from './retry.js';

/**
 * One job as an engine hands it to the worker.
 *
 * @example
 * ```ts
 * await run({ delivery: job.data, job, attempt: job.attemptsStarted });
 * ```
 */
export interface SourceJob<J = unknown> {
  /** What the receiver enqueued. */
  delivery: QueuedDelivery;
  /** The engine's own job, handed to handlers as `context.job`. */
  job: J;
  /**
   * This run's number, 1-based, counting every earlier run: failed ones and those whose lock
   * or lease lapsed (a killed or stalled worker). Past `retry.attempts` the job is dead-lettered.
   */
  attempt: number;
  /**
   * Runs of this job deferred so far because another worker held its claim (see
   * {@link JobFailure.deferred}): not counted in `attempt`, they stretch the next deferral.
   * Default 0.
   */
  deferrals?: number;
  /** Aborted by the engine when it takes the job back (a lost lock); passed on to `context.signal`. */
  signal?: AbortSignal;
  /**
   * For engines that keep their jobs in the dedup store's database (pg-boss with the
   * `/postgres` transactional store): completes the job through the handler's transaction
   * `tx`, after the handler succeeded, so the job's completion commits with the handler's
   * writes and the done row, or none of them does.
   */
  completeIn?: (tx: unknown, result: JobResult) => Promise<void>;
}

/** What a source learns when the worker starts it. */
export interface SourceSettings {
  /** Jobs this worker runs at once. */
  concurrency: number;
  /** The worker's retry policy, for engines that schedule retries themselves. */
  retry: RetryPolicy;
  /**
   * Where the source reports trouble it recovers from by itself (a lost connection it
   * re-opens): the worker's logger, as a warning. Absent when the worker logs nothing.
   */
  warn?: (message: string) => void;
}

/**
 * The consumer side of a job engine, for {@link startWorker}. `start` begins taking jobs and
 * calls `run` for each: it resolves when the job is done (complete it, keeping the result as
 * the job's, where `DeliveryQueue.waitForResult` can read it) and rejects with a
 * {@link JobFailure} that says whether to retry, after how long, or to dead-letter the job.
 * `close` stops taking jobs; the worker itself waits for those running.
 * `bullmqSource` (`webhook-cms-receiver/bullmq`) and `pgBossSource`
 * (`webhook-cms-receiver/pg-boss`) implement it.
 *
 * @example
 * ```ts
 * const source: JobSource<MyJob> = {
 *   start(run) { engine.consume((job) => run({ delivery: job.payload, job, attempt: job.runs })); },
 *   close: () => engine.stop(),
 * };
 * ```
 */
export interface JobSource<J = unknown> {
  start(run: (job: SourceJob<J>) => Promise<JobResult>, settings: SourceSettings): void | Promise<void>;
  close(): Promise<void>;
}

// A registered symbol: a source built into another entry's bundle still recognises the failure.
const BRAND = Symbol.for('webhook-cms-receiver.JobFailure');

/**
 * Why a job did not complete, as the worker tells its source: retry it after `delayMs`, or
 * (`retry: false`) move it to the engine's dead-letter list. `cause` is what failed.
 *
 * @example
 * ```ts
 * try { await run(job); } catch (error) {
 *   if (isJobFailure(error) && !error.retry) await deadLetter(job, error.message);
 * }
 * ```
 */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  /** False when the job must not run again: a fatal error, or its last attempt. */
  readonly retry: boolean;
  /** How long to wait before the retry (capped exponential with jitter); 0 when not retried. */
  readonly delayMs: number;
  /**
   * True when the job did not run because another worker holds its claim (a copy running now,
   * or the claim of a worker killed mid-job, until its lease lapses). The source delays the job
   * by `delayMs` without counting the run as an attempt, so a crash cannot use up attempts.
   */
  readonly deferred: boolean;

  constructor(cause: unknown, options: { retry: boolean; delayMs?: number; deferred?: boolean }) {
    super(reasonOf(cause), { cause });
    this.retry = options.retry;
    this.delayMs = options.retry ? (options.delayMs ?? 0) : 0;
    this.deferred = options.retry && options.deferred === true;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True for a {@link JobFailure} from any copy of this package.
 *
 * @example
 * ```ts
 * if (isJobFailure(error) && error.retry) scheduleRetry(job, error.delayMs);
 * ```
 */
export function isJobFailure(value: unknown): value is JobFailure {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** What failed, for the engine's dead-letter reason: a `WebhookError`'s code and internal reason, not its public text. */
function reasonOf(cause: unknown): string {
  if (isWebhookError(cause)) return `${cause.code}: ${cause.reason}`;
  return describeThrown(cause instanceof Error ? cause.message : cause);
}
