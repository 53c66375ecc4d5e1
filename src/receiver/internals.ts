import type { ReceiverOptions } from './options.js';
import type { VerifyConfig } from './verify-delivery.js';

/** What the HTTP layer needs of a receiver beyond its public methods; kept off the public object. */
export interface ReceiverInternals {
  options: ReceiverOptions;
  config: VerifyConfig;
}

export const internals = new WeakMap<object, ReceiverInternals>();
