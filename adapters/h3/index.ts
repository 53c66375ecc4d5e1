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
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { exchangeHandler, exchangeVerifier } from 'webhook-cms-receiver/adapter-kit';
import { H3, type H3EventLike } from './h3-io.js';

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
  return Object.assign(exchangeHandler(H3, receiver, handlers), { __is_handler__: true as const });
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
  return exchangeVerifier(H3, receiver, 'response');
}
