/**
 * The Fetch runtimes (Bun, Deno, Cloudflare Workers, Next.js route handlers) adapter: moves bytes and headers between the framework and `receiver.handle`.
 *
 * @example
 * ```ts
 * import { webhookHandler } from 'webhook-cms-receiver/fetch';
 * export const POST = webhookHandler(receiver, handlers);
 * ```
 * @module webhook-cms-receiver/fetch
 */
import {
  serveRequest,
  toFetchResponse,
  verifyRequest,
  type AdapterRequest,
  type Receiver,
  type WebhookEvent,
  type WebhookHandlers,
} from 'webhook-cms-receiver';

/**
 * A `(request: Request) => Promise<Response>` handler for Bun, Deno, Cloudflare Workers,
 * Next.js route handlers and anything else that speaks Fetch.
 *
 * @example
 * ```ts
 * export const POST = webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) });
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers: WebhookHandlers): (request: Request) => Promise<Response> {
  return async (request) => toFetchResponse(await serveRequest(receiver, fromFetch(request), handlers));
}

/**
 * Verifies only: resolves to the event, or to the `Response` to return when the delivery is
 * refused. No dedup runs here.
 *
 * @example
 * ```ts
 * const result = await verifyWebhook(receiver)(request);
 * if ('response' in result) return result.response;
 * console.log(result.event.type);
 * ```
 */
export function verifyWebhook(
  receiver: Receiver,
): (request: Request) => Promise<{ event: WebhookEvent } | { response: Response }> {
  return async (request) => {
    const result = await verifyRequest(receiver, fromFetch(request));
    return 'answer' in result ? { response: toFetchResponse(result.answer) } : result;
  };
}

function fromFetch(request: Request): AdapterRequest {
  return {
    method: request.method,
    headers: request.headers,
    // The kit tells a used or locked body from an unread one, with the fix.
    body: () => request,
  };
}
