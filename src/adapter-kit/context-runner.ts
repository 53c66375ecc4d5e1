/**
 * Runs `continuation(value)` in a captured async context; an adapter's
 * `AdapterRequest.captureContext` returns one, built on its runtime's own capture
 * (Node's `AsyncResource`, say). Called at most once.
 *
 * @example
 * ```ts
 * const captureContext = (): ContextRunner => {
 *   const resource = new AsyncResource('webhook');
 *   return (continuation, value) => resource.runInAsyncScope(continuation, undefined, value);
 * };
 * ```
 * @group Adapter kit
 */
export type ContextRunner = <T>(continuation: (value: T) => void, value: T) => void;
