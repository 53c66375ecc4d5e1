import type { ContextRunner } from 'webhook-cms-receiver/adapter-kit';
import { loadBuiltin } from '../../src/internal/builtin.js';

/** The part of Node's `AsyncResource` used here, described without Node's types. */
interface AsyncResourceLike {
  runInAsyncScope<T>(continuation: (value: T) => void, thisArg: undefined, value: T): void;
}

// Through `process.getBuiltinModule`, as the core loads node:crypto: the Fetch, Hono and h3
// entries import this one, and must still load on a Worker without `nodejs_compat`.
const AsyncResource = loadBuiltin<{ AsyncResource?: new (type: string) => AsyncResourceLike }>(
  'node:async_hooks',
)?.AsyncResource;

/**
 * Captures the async context a Node request was handed over in, for the adapter kit: a Node
 * stream emits its `'data'` and `'end'` events in the socket's context, where a store the
 * host's middleware entered with `AsyncLocalStorage.run` (or the span an OpenTelemetry
 * instrumentation made active) is gone. One `AsyncResource` per request, made only when the
 * body is read from the stream; undefined where the runtime has none (Node before 20.16),
 * which leaves the handlers in the stream's context.
 */
export const captureNodeContext: (() => ContextRunner) | undefined = AsyncResource
  ? () => {
      const resource = new AsyncResource('webhook-cms-receiver');
      return (continuation, value) => resource.runInAsyncScope(continuation, undefined, value);
    }
  : undefined;
