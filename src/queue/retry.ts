import { positiveOption } from '../internal/positive.js';

/**
 * How a worker retries a job whose handler threw, timed out, or met another copy in flight.
 * Every run counts as an attempt, including one whose lock or lease lapsed (a worker killed
 * mid-job, a stalled job). The delay before retry `n` (1-based) is
 * `min(maxDelayMs, initialDelayMs × 2^(n−1))`, of which a random half is taken off ("equal
 * jitter"), so workers that failed together do not retry together.
 *
 * Defaults: 10 attempts, 1 s, doubling, capped at 5 minutes: about 17 minutes of retries in
 * all, during which the service is already answered.
 *
 * @example
 * ```ts
 * startWorker(source, { handlers, retry: { attempts: 5, initialDelayMs: 2000, maxDelayMs: 60_000 } });
 * ```
 */
export interface RetryOptions {
  /** Runs in all, the first included. Default 10. */
  attempts?: number;
  /** Delay before the first retry, before jitter. Default 1000. */
  initialDelayMs?: number;
  /** Largest delay, before jitter. Default 300 000 (5 minutes). */
  maxDelayMs?: number;
}

/** {@link RetryOptions} with every default filled in. */
export interface RetryPolicy {
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The retry defaults: 10 attempts, 1 s first delay, 5 minute cap. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  attempts: 10,
  initialDelayMs: 1000,
  maxDelayMs: 5 * 60 * 1000,
});

/** Fills in the defaults and checks the values once, at start-up. */
export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const attempts = positiveOption(options?.attempts, DEFAULT_RETRY.attempts, 'startWorker: retry.attempts');
  if (!Number.isInteger(attempts))
    throw new RangeError(`startWorker: retry.attempts must be an integer, got ${attempts}.`);
  return {
    attempts,
    initialDelayMs: positiveOption(
      options?.initialDelayMs,
      DEFAULT_RETRY.initialDelayMs,
      'startWorker: retry.initialDelayMs',
    ),
    maxDelayMs: positiveOption(options?.maxDelayMs, DEFAULT_RETRY.maxDelayMs, 'startWorker: retry.maxDelayMs'),
  };
}

/**
 * The delay before the retry that follows failed attempt `attempt` (1-based): capped
 * exponential, with equal jitter.
 *
 * @example
 * ```ts
 * retryDelayMs(DEFAULT_RETRY, 3); // between 2000 and 4000
 * ```
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 52);
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
