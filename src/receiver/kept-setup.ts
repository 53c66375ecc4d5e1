import { memoryKeptRequests } from '../dedup/kept-requests.js';
import type { DedupStore } from '../dedup/store.js';
import { positiveOption } from '../internal/positive.js';
import type { VerifyConfig } from './config.js';
import { reportingLog } from './hooks.js';
import { KeptDeliveries } from './kept-deliveries.js';
import type { ReceiverOptions } from './options.js';
import type { Pipeline } from './pipeline.js';
import { DEFAULT_TOKEN_CACHE_MS } from './token-source.js';

/** The default of `maxKeptRequests`. */
export const DEFAULT_MAX_KEPT_REQUESTS = 1000;
/** The default of `maxKeptBytes`: 64 MiB. */
export const DEFAULT_MAX_KEPT_BYTES = 64 * 1024 * 1024;

/**
 * A receiver's kept requests: in its dedup store when the store keeps them (shared by every
 * instance), else in this process's memory.
 */
export function keptDeliveries(
  options: ReceiverOptions,
  config: VerifyConfig,
  pipeline: Pipeline,
  store: DedupStore | false,
): KeptDeliveries {
  const kept = new KeptDeliveries({
    config,
    options,
    pipeline,
    store: (store ? store.kept : undefined) ?? memoryKeptRequests(config.now),
    maxCount: positiveOption(options.maxKeptRequests, DEFAULT_MAX_KEPT_REQUESTS, 'createReceiver: maxKeptRequests'),
    maxBytes: positiveOption(options.maxKeptBytes, DEFAULT_MAX_KEPT_BYTES, 'createReceiver: maxKeptBytes'),
    cacheMs: options.tokenCacheMs ?? DEFAULT_TOKEN_CACHE_MS,
    report: (message) => reportingLog(options).warn(`rotation window: ${message}`, {}),
  });
  config.keeper.onChange(() => void kept.retry());
  return kept;
}
