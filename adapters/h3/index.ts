/**
 * The h3 adapter, for h3 1 (Nuxt 3 and 4 server routes, Nitro 2) and h3 2. It tells the two
 * apart at run time and imports neither, so h3 stays an optional peer dependency.
 *
 * @example
 * ```ts
 * // server/routes/webhook.post.ts (Nuxt, Nitro)
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { webhookHandler } from 'webhook-cms-receiver/h3';
 * export default webhookHandler(createReceiver({ token: process.env.WEBHOOK_TOKEN! }), handlers);
 * ```
 * @module webhook-cms-receiver/h3
 */
import {
  errorHttpAnswer,
  logUnexpected,
  type Receiver,
  serveRequest,
  toFetchResponse,
  verifyRequest,
  type WebhookEvent,
  WebhookError,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import { type H3EventLike, type H3Exchange, h3Exchange } from './h3-io.js';

export type { H3EventLike } from './h3-io.js';

/**
 * An h3 event handler: h3 2 gets a `Response`; on h3 1 the answer is written through h3 (or
 * straight to the socket for a refusal made before the body was read).
 */
export interface H3WebhookHandler {
  (event: H3EventLike): Promise<Response | string | undefined>;
  /** What h3 1's `defineEventHandler` sets, so `app.use` and Nitro take the handler as it is. */
  readonly __is_handler__: true;
}

/**
 * An h3 1 or 2 event handler that verifies, deduplicates and answers deliveries: for
 * `app.use('/webhook', …)`, `router.post('/webhook', …)`, h3 2's `app.post('/webhook', …)`, or
 * as the default export of a Nuxt or Nitro server route. Read nothing from the event before
 * it: after `readBody` the raw bytes the signature covers are gone, and the answer is 500
 * `Server misconfigured` with one log line naming the fix. The promise never rejects.
 *
 * @example
 * ```ts
 * // server/api/webhook.post.ts
 * export default webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) });
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers): H3WebhookHandler {
  const handler = (event: H3EventLike): Promise<Response | string | undefined> =>
    withExchange(event, async (exchange) => exchange.answer(await serveRequest(receiver, exchange.request, handlers)));
  return Object.assign(handler, { __is_handler__: true as const });
}

/**
 * Verifies only: resolves to the event, or to the `Response` to return when the delivery is
 * refused (on h3 1 and 2 alike). No dedup runs here.
 *
 * @example
 * ```ts
 * const verify = verifyWebhook(receiver);
 * export default defineEventHandler(async (event) => {
 *   const verified = await verify(event);
 *   if ('response' in verified) return verified.response;
 *   await queue.push(verified.event);
 *   return { ok: true };
 * });
 * ```
 */
export function verifyWebhook(
  receiver: Receiver,
): (event: H3EventLike) => Promise<{ event: WebhookEvent } | { response: Response }> {
  return (event) =>
    withExchange(
      event,
      async (exchange) => {
        const verified = await verifyRequest(receiver, exchange.request);
        return 'event' in verified ? verified : { response: exchange.refusal(verified.answer) };
      },
      (response) => ({ response }),
    );
}

/** Translates the event and runs `use` on it; anything unexpected is logged and answered 500. */
async function withExchange<R>(
  event: H3EventLike,
  use: (exchange: H3Exchange) => Promise<R>,
  wrap: (response: Response) => R = (response) => response as R,
): Promise<R> {
  try {
    return await use(h3Exchange(event));
  } catch (error) {
    logUnexpected(error);
    return wrap(
      toFetchResponse(errorHttpAnswer(new WebhookError('internal_error', 'unexpected failure in the h3 adapter'))),
    );
  }
}
