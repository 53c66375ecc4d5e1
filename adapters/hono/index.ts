/**
 * The Hono adapter: moves bytes and headers between the framework and `receiver.handle`.
 *
 * @example
 * ```ts
 * import { webhookHandler } from 'webhook-cms-receiver/hono';
 * app.post('/webhook', webhookHandler(receiver, handlers));
 * ```
 * @module webhook-cms-receiver/hono
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import {
  serveRequest,
  verifyRequest,
  type AdapterRequest,
  type HttpAnswer,
  type RequestBody,
} from 'webhook-cms-receiver/adapter-kit';
import { fetchResponseOnNode, type NodeRequest, type NodeResponse } from 'webhook-cms-receiver/node';

/** The context variables `verifyWebhook` sets: `c.get('webhookEvent')`. */
export type WebhookVariables = { webhookEvent: WebhookEvent };

/**
 * A Hono handler that verifies, deduplicates and answers deliveries.
 *
 * @example
 * ```ts
 * app.post('/webhook', webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) }));
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers): (c: Context) => Promise<Response> {
  return async (c) => answer(c, await serveRequest(receiver, fromHono(c), handlers));
}

/**
 * Middleware that only verifies and puts the event on the context; you write the response.
 * No dedup runs here.
 *
 * @example
 * ```ts
 * app.post('/webhook', verifyWebhook(receiver), (c) => c.json({ ok: true, type: c.get('webhookEvent').type }));
 * ```
 */
export function verifyWebhook(receiver: Receiver): MiddlewareHandler<{ Variables: WebhookVariables }> {
  return async (c, next) => {
    const result = await verifyRequest(receiver, fromHono(c));
    if ('answer' in result) return answer(c, result.answer);
    c.set('webhookEvent', result.event);
    await next();
  };
}

function fromHono(c: Context): AdapterRequest {
  // The unread request as it is: a promise here would cost the common case a turn.
  return {
    method: c.req.method,
    headers: c.req.raw.headers,
    body: () => (c.req.raw.bodyUsed ? keptBody(c) : c.req.raw),
  };
}

async function keptBody(c: Context): Promise<RequestBody> {
  // Hono keeps what an earlier middleware read; only the raw bytes are of use here.
  const cached = (c.req as unknown as { bodyCache: { arrayBuffer?: Promise<ArrayBuffer> } }).bodyCache.arrayBuffer;
  return cached
    ? new Uint8Array(await cached)
    : {
        alreadyParsed: 'c.req.json() or c.req.text() in an earlier middleware',
        fix: 'Read nothing from c.req before the webhook handler, or read it with c.req.arrayBuffer(), which this adapter can reuse.',
      };
}

/** On `@hono/node-server`, a refusal made before the body was read also closes the connection. */
function answer(c: Context, http: HttpAnswer): Response {
  const node = c.env as { incoming?: NodeRequest; outgoing?: NodeResponse } | undefined;
  return fetchResponseOnNode(http, { req: node?.incoming, res: node?.outgoing });
}
