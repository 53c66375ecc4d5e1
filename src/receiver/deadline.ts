import { WebhookError } from '../errors/webhook-error.js';
import { isThenable, type MaybePromise } from '../internal/maybe.js';

/** The default of `handlerTimeoutMs`: 5 minutes, far past the service's own 10 s wait. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * The handler's context with a `signal` made only when the handler reads it: most handlers
 * never do, and an `AbortController` per delivery would cost every one of them.
 */
export class DeliveryContext {
  private controller: AbortController | undefined;
  constructor(readonly tx?: unknown) {}

  /** Aborted when the handler outlives `handlerTimeoutMs`. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /** Aborts the signal, also one the handler asks for only later (a job its engine took back before it ran). */
  abort(reason: Error): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}

/**
 * Settles a running handler within `timeoutMs`: past it, the context's signal is aborted and
 * the result rejects with a `handler_timeout` error, so the claim is released and a retry can
 * run instead of every retry meeting a 409 behind a handler that never settles. A synchronous
 * result passes through untouched.
 */
export function withDeadline<T>(
  result: MaybePromise<T>,
  options: { timeoutMs: number; context: DeliveryContext; name: string },
): MaybePromise<T> {
  if (!isThenable(result)) return result;
  const { timeoutMs, context, name } = options;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new WebhookError(
        'handler_timeout',
        `the ${name} handler did not settle within handlerTimeoutMs (${timeoutMs} ms); its signal was aborted and ` +
          'the delivery released for a retry. Pass context.signal to the work it awaits, or use queue mode for long work.',
      );
      context.abort(error);
      reject(error);
    }, timeoutMs);
    result.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (cause: unknown) => {
        clearTimeout(timer);
        reject(cause);
      },
    );
  });
}
