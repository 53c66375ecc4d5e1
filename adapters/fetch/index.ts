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
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { serveRequest, verifyRequest, type AdapterRequest, type HttpAnswer } from 'webhook-cms-receiver/adapter-kit';
import { fetchResponseOnNode, type NodeRequest, type NodeResponse } from 'webhook-cms-receiver/node';

// The delivery ledger's page is a Fetch handler already: the same name here as in /node.
export { ledgerPage, type LedgerPageOptions } from 'webhook-cms-receiver';

/**
 * A `(request: Request) => Promise<Response>` handler for Bun, Deno, Cloudflare Workers,
 * Next.js route handlers and anything else that speaks Fetch. On `@hono/node-server` pass
 * its second argument through (`serve({ fetch: handler })` does), so a refused request's
 * connection is closed instead of its body read.
 *
 * @example
 * ```ts
 * export const POST = webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) });
 * ```
 */
export function webhookHandler(
  receiver: Receiver,
  handlers?: WebhookHandlers,
): (request: Request, env?: unknown) => Promise<Response> {
  return async (request, env) => respond(request, env, await serveRequest(receiver, fromFetch(request), handlers));
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
): (request: Request, env?: unknown) => Promise<{ event: WebhookEvent } | { response: Response }> {
  return async (request, env) => {
    const result = await verifyRequest(receiver, fromFetch(request));
    return 'answer' in result ? { response: respond(request, env, result.answer) } : result;
  };
}

/**
 * The answer as a `Response`. On a Node host that hands over its Node objects
 * (`@hono/node-server` as the second argument, srvx on `request.runtime.node`), a refusal
 * also closes the connection, so an unauthenticated body is not read.
 */
function respond(request: Request, env: unknown, answer: HttpAnswer): Response {
  return fetchResponseOnNode(answer, nodeObjects(request, env));
}

type NodeObjects = { req: NodeRequest; res: NodeResponse };

function nodeObjects(request: Request, env: unknown): NodeObjects | undefined {
  const bridged = env as { incoming?: NodeRequest; outgoing?: NodeResponse } | null | undefined;
  if (bridged?.incoming && bridged.outgoing) return { req: bridged.incoming, res: bridged.outgoing };
  const srvx = (request as { runtime?: { node?: Partial<NodeObjects> } }).runtime?.node;
  return srvx?.req && srvx.res ? (srvx as NodeObjects) : undefined;
}

function fromFetch(request: Request): AdapterRequest {
  return {
    method: request.method,
    headers: request.headers,
    // The kit tells a used or locked body from an unread one, with the fix.
    body: () => request,
  };
}
