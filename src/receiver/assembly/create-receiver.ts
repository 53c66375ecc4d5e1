import { memoryDedupStore } from '../../dedup/memory-store.js';
import type { WebhookEvent } from '../../events/types.js';
import type { Admission, RequestHead } from '../admission.js';
import { admit } from './admit.js';
import type { Answer } from '../answers.js';
import { resolveConfig } from '../config.js';
import { type Core, handleInput } from './handle-input.js';
import type { WebhookHandlers } from '../handlers.js';
import { reportReceiverError } from '../hooks.js';
import { ledgerHooks } from '../ledger/ledger-setup.js';
import type { ReceiverOptions } from '../options.js';
import { keptDeliveries } from '../kept/kept-setup.js';
import { createPipeline } from '../pipeline.js';
import { TokenUsage } from '../token-usage.js';
import { queuePipeline } from '../queue-mode/queue-pipeline.js';
import { type DeliveryInput, verifyDelivery } from '../verify-delivery.js';

/** A configured receiver. Create one per endpoint at start-up and reuse it for every request. */
export interface Receiver {
  /**
   * Checks a delivery and returns its typed event, or throws a `WebhookError`. Pure: no
   * dedup, no hooks, so it is safe to call from your own pipeline and tests.
   */
  verify(input: DeliveryInput): Promise<WebhookEvent>;
  /**
   * Verifies, deduplicates and runs the matching handler. Resolves to the answer to send;
   * never rejects for a bad delivery or a failing handler.
   */
  handle(input: DeliveryInput, handlers?: WebhookHandlers): Promise<Answer>;
  /**
   * For adapters: checks what the request line and headers can tell (method, a declared
   * `Content-Length` over `maxBodyBytes`, the token) before any body byte is read, so an
   * unauthenticated flood costs headers, not bodies. A token the head cannot decide (a token
   * source being read, a tenant looked up) is admitted pending: `settle()` waits for it. The
   * admitted request then handles or verifies the body without checking the token again.
   * Adapters built on `serveRequest` (adapter kit) get all of this.
   *
   * @example
   * ```ts
   * let admission = receiver.admit({ method: req.method, headers: req.headers });
   * // A token source or a tenant lookup decides after the head: wait for it before the body.
   * if (admission.admitted) admission = (await admission.settle?.()) ?? admission;
   * const answer = admission.admitted ? await admission.handle(await readBody(req), handlers) : admission.answer;
   * ```
   */
  admit(head: RequestHead): Admission;
  /** The body size limit: adapters stop reading past it and derive their parsers' limits from it. */
  readonly maxBodyBytes: number;
}

/**
 * Creates a receiver for one webhook endpoint.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN! });
 * const { status, body } = await receiver.handle({ headers: req.headers, body: rawBody }, {
 *   'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
 * });
 * ```
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  const config = resolveConfig(options, (error) => reportReceiverError(options, error));
  const { instrumentation } = options;
  if (instrumentation !== undefined && typeof instrumentation?.startDelivery !== 'function') {
    throw new TypeError(
      'createReceiver: instrumentation must be an object with a startDelivery method, such as openTelemetry() ' +
        "from 'webhook-cms-receiver/opentelemetry'.",
    );
  }
  // The default store shares the receiver's clock, so tests that move `now` move leases and retention too.
  const store = options.dedup === undefined ? memoryDedupStore({ now: options.now }) : options.dedup;
  const { queue } = options;
  const pipeline =
    queue === undefined ? createPipeline({ options, store }) : queuePipeline({ options, config, store, queue });
  const core: Core = {
    config,
    options,
    pipeline,
    kept: keptDeliveries(options, config, pipeline, store),
    usage: new TokenUsage(options, config.now),
  };
  const ledger = ledgerHooks(options, { config, pipeline });
  if (ledger) core.ledger = ledger;
  return {
    maxBodyBytes: config.maxBodyBytes,
    // Not `async`: on the synchronous path each of these settles in one promise turn.
    verify(input) {
      try {
        return Promise.resolve(verifyDelivery(config, input));
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    },
    handle(input, handlers) {
      return Promise.resolve(handleInput(core, { input, handlers }));
    },
    admit(head) {
      return admit(core, head);
    },
  };
}
