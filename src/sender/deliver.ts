import { attempt, requestInit } from './deliver-attempt.js';
import { outcomeOf, result } from './deliver-summary.js';
import type { DeliverOptions, DeliveryAttempt, DeliveryResult } from './deliver-types.js';
import { httpUrl } from './http-url.js';

export type { DeliverOptions, DeliveryAttempt, DeliveryResult, DeliverySummary } from './deliver-types.js';
export { describeFailure } from './deliver-attempt.js';

/** The service's delays before the 2nd, 3rd and 4th attempt, after the previous one. */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 5_000, 10_000];
/** The service waits this long for an answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Sends a delivery the way the service does: a fresh timestamp and signature on every
 * attempt under the same delivery id, a 10 s timeout, retries 2, 5 and 10 s after the
 * previous attempt, stopping at any 2xx and never retrying 401 or 403. Options send a
 * tampered body, a wrong token or a stale timestamp, to prove your endpoint refuses them.
 *
 * @example
 * ```ts
 * const result = await deliver('http://127.0.0.1:3000/webhook', { token: 'test-token', payload: articleSyncPayload(), timeScale: 0.01 });
 * expect(result.outcome).toBe('delivered');
 * expect(result.publishedUrl).toBe('https://blog.example.com/ten-seo-tips');
 * ```
 */
export async function deliver(url: string, options: DeliverOptions): Promise<DeliveryResult> {
  const target = checkedUrl(url);
  const { token, payload } = options;
  if (typeof token !== 'string' || token === '')
    throw new TypeError("deliver: token must be a non-empty string (the endpoint's WEBHOOK_TOKEN).");
  const scale = options.timeScale ?? 1;
  if (!(scale > 0)) throw new RangeError(`deliver: timeScale must be a positive number, got ${String(scale)}.`);
  const maxAttempts = options.maxAttempts ?? RETRY_DELAYS_MS.length + 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > RETRY_DELAYS_MS.length + 1) {
    throw new RangeError(
      `deliver: maxAttempts must be 1, 2, 3 or 4 (the service's quick attempts), got ${String(maxAttempts)}.`,
    );
  }
  const send = options.fetch ?? globalThis.fetch;
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const deliveryId = options.deliveryId ?? globalThis.crypto.randomUUID();
  const attempts: DeliveryAttempt[] = [];
  const firstStart = Date.now();
  for (let number = 1; ; number++) {
    const last = number === maxAttempts;
    const started = Date.now();
    const timestamp = String(Math.floor(started / 1000) - (options.staleBy ?? 0));
    const init = requestInit(options, body, timestamp, deliveryId, ATTEMPT_TIMEOUT_MS * scale);
    const answer = await attempt(send, target, init, ATTEMPT_TIMEOUT_MS * scale);
    const outcome = outcomeOf(answer.status, last);
    const retryInMs = outcome === undefined ? RETRY_DELAYS_MS[number - 1]! * scale : null;
    const record: DeliveryAttempt = {
      number,
      ...answer,
      elapsedMs: Date.now() - started,
      startedAtMs: started - firstStart,
      timestamp,
      retryInMs,
    };
    attempts.push(record);
    options.onAttempt?.(record);
    if (outcome !== undefined) return result(outcome, deliveryId, attempts, target);
    await new Promise((resolve) => setTimeout(resolve, retryInMs!));
  }
}

function checkedUrl(url: string): string {
  const parsed = httpUrl(url);
  if (!parsed) {
    throw new TypeError(
      `deliver: "${url}" is not an http(s) URL; pass the endpoint's full address, e.g. http://127.0.0.1:3000/webhook`,
    );
  }
  return parsed.href;
}
