/** A value now, or later: what a synchronous store or handler gives without a promise turn. */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise or any other thenable. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * Continues with a value that may or may not be a promise, staying synchronous when it is not:
 * the memory store and a synchronous handler then cost no promise turn. `failed` takes a
 * rejection of `value`; a synchronous throw comes from the producer, so wrap that in {@link attempt}.
 */
export function andThen<T, R>(
  value: T | PromiseLike<T>,
  step: (value: T) => MaybePromise<R>,
  failed?: (cause: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  return isThenable(value) ? Promise.resolve(value).then(step, failed) : step(value);
}

/** Runs `produce`, turning a synchronous throw into a call of `failed`. */
export function attempt<R>(
  produce: () => MaybePromise<R>,
  failed: (cause: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  try {
    const value = produce();
    return isThenable(value) ? Promise.resolve(value).then(undefined, failed) : value;
  } catch (cause) {
    return failed(cause);
  }
}
