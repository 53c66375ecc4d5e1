/**
 * The default of `tokenReadTimeoutMs`: how long a read of a token source (or a `tenants`
 * lookup) may take. Half the service's 10 s delivery timeout, so a delivery held by a read
 * still gets its 503 (and is retried) rather than timing out on the service's side.
 */
export const DEFAULT_TOKEN_READ_TIMEOUT_MS = 5000;

/**
 * `value`, or a rejection naming `what` once `timeoutMs` pass: a hung secret manager or
 * database must not hold deliveries forever. The timer never holds the process open; a late
 * answer is dropped (the next read asks again).
 */
export function withReadTimeout<T>(value: T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${timeoutMs} ms (tokenReadTimeoutMs)`)),
      timeoutMs,
    );
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([Promise.resolve(value), expired]).finally(() => clearTimeout(timer));
}
