import type { ReceiverOptions } from './options.js';
import type { VerifyConfig } from './verify-delivery.js';

/** What the HTTP layer needs of a receiver beyond its public methods. */
export interface ReceiverInternals {
  options: ReceiverOptions;
  config: VerifyConfig;
}

// A registered symbol, not a module-level WeakMap: the ESM and CommonJS builds each have their
// own module state, and a receiver made by one must still work with an adapter from the other.
const KEY = Symbol.for('webhook-cms-receiver.internals');

/** Attaches the internals, non-enumerable so they stay out of logs and `JSON.stringify`. */
export function setInternals(receiver: object, value: ReceiverInternals): void {
  Object.defineProperty(receiver, KEY, { value });
}

export function getInternals(receiver: unknown): ReceiverInternals | undefined {
  return typeof receiver === 'object' && receiver !== null
    ? (receiver as { [KEY]?: ReceiverInternals })[KEY]
    : undefined;
}
