import { memoryKeptRequests } from '../../dedup/kept-requests.js';
import type { DedupStore } from '../../dedup/store.js';
import type { WebhookError } from '../../errors/webhook-error.js';
import type { HeadersInput } from '../../input/headers.js';
import { positiveOption } from '../../internal/positive.js';
import type { VerifyConfig } from '../config.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportingLog } from '../hooks.js';
import type { KeptDeliveries } from './kept-deliveries.js';
import type { ReceiverOptions } from '../options.js';
import type { Pipeline } from '../pipeline.js';
import { FixedTokens } from '../tokens/fixed-tokens.js';
import { DEFAULT_TOKEN_CACHE_MS } from '../tokens/token-source.js';
import type { DeliveryInput } from '../verify-delivery.js';

/** The default of `maxKeptRequests`. */
export const DEFAULT_MAX_KEPT_REQUESTS = 1000;
/** The default of `maxKeptBytes`: 64 MiB. */
export const DEFAULT_MAX_KEPT_BYTES = 64 * 1024 * 1024;

/** What `handle()` asks of the rotation window's kept requests. */
export interface KeptRequests {
  /** On every `handle()`: the handlers kept requests are processed with. */
  touch(handlers: WebhookHandlers | undefined): void;
  /** Keeps a request refused with `token_rotating`; resolves once stored (or refused by the bounds). */
  keep(input: DeliveryInput): Promise<void>;
  /**
   * For `admit`, at a request's head once check 2 answered `token_rotating`: the refusal to
   * answer without reading the body (it would not be kept), or undefined to read it and keep it.
   */
  head(headers: HeadersInput): WebhookError | undefined;
}

/**
 * A receiver's kept requests: in its dedup store when the store keeps them (shared by every
 * instance), else in this process's memory. Their code loads on first use: a rotation window
 * armed, or a token source's first answer (which may arm one, or end one another instance
 * kept requests for), so an endpoint with a fixed token does not load or bundle it eagerly.
 */
export function keptDeliveries(
  options: ReceiverOptions,
  config: VerifyConfig,
  pipeline: Pipeline,
  store: DedupStore | false,
): KeptRequests {
  // Checked here, so a bad bound still throws from createReceiver.
  const maxCount = positiveOption(
    options.maxKeptRequests,
    DEFAULT_MAX_KEPT_REQUESTS,
    'createReceiver: maxKeptRequests',
  );
  const maxBytes = positiveOption(options.maxKeptBytes, DEFAULT_MAX_KEPT_BYTES, 'createReceiver: maxKeptBytes');
  let touched: { handlers: WebhookHandlers | undefined } | undefined;
  let loaded: Promise<KeptDeliveries> | undefined;
  let ready: KeptDeliveries | undefined;
  const load = () =>
    (loaded ??= import('./kept-deliveries.js').then(({ KeptDeliveries }) => {
      const kept = new KeptDeliveries({
        config,
        options,
        pipeline,
        store: (store ? store.kept : undefined) ?? memoryKeptRequests(config.now),
        maxCount,
        maxBytes,
        cacheMs: options.tokenCacheMs ?? DEFAULT_TOKEN_CACHE_MS,
        report: (message) => reportingLog(options).warn(`rotation window: ${message}`, {}),
      });
      if (touched) kept.touch(touched.handlers);
      ready = kept;
      return kept;
    }));
  config.keeper.onChange(() => void load().then((kept) => kept.retry()));
  // What another instance kept before this one started is checked now, not at the first
  // delivery: a redeploy with the new token processes it with no traffic. A fixed token list
  // with no window can neither verify nor drop kept requests, so it loads nothing.
  if (store && store.kept !== undefined && !(config.keeper instanceof FixedTokens))
    void load().then((kept) => kept.start());
  return {
    touch(handlers) {
      touched = { handlers };
      if (loaded) void loaded.then((kept) => kept.touch(handlers));
      else if (config.keeper.rotatingUntil() !== undefined) void load();
    },
    keep: (input) => load().then((kept) => kept.keep(input)),
    // Before its code is in (the first request of a window), the body is read and `keep` decides.
    head: (headers) => (ready ? ready.head(headers) : void load()),
  };
}
