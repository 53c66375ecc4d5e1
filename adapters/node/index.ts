/**
 * The `node:http` adapter: plain `http`/`https`/`http2` compat servers, Next.js pages router
 * API routes, Vercel and Google Cloud/Firebase Node functions, and the base of the Express,
 * Fastify and Koa adapters.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { webhookHandler } from 'webhook-cms-receiver/node';
 * createServer(webhookHandler(receiver, handlers)).listen(3000);
 * ```
 * @module webhook-cms-receiver/node
 */
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { logUnexpected, answerRequest, verifyRequest } from 'webhook-cms-receiver/adapter-kit';
import { nodeAdapterRequest, sendNodeAnswer } from './node-io.js';
import type { NodeRequest, NodeResponse } from './node-objects.js';

export { closeAfterAnswer, fetchResponseOnNode, prepareNodeAnswer } from './connection.js';
// Moved into the adapter kit; still exported here, where 0.2 had it.
export { logUnexpected } from 'webhook-cms-receiver/adapter-kit';
export {
  answerThrough,
  keptRaw,
  nodeAdapterRequest,
  sendNodeAnswer,
  unreadStream,
  type FrameworkWriter,
  type NodeAdapterOptions,
  type ParserHints,
} from './node-io.js';
export type { NodeRequest, NodeResponse, NodeSocket } from './node-objects.js';
export { ledgerPage, type LedgerPageRequest, type NodeLedgerPageOptions } from './ledger-page.js';

const HINTS = {
  parser: 'a body parser (Next.js pages routes parse JSON unless told not to)',
  fix: 'Next.js pages router: export const config = { api: { bodyParser: false } }. Elsewhere, hand over the unread request or keep the bytes on req.rawBody.',
};

/**
 * A `(req, res) => Promise<void>` request listener that verifies, deduplicates and answers
 * deliveries. Reads the body itself, or takes `req.rawBody` where the host kept it (Google
 * Cloud Functions, Firebase, NestJS with `rawBody: true`). The promise never rejects.
 *
 * @example
 * ```ts
 * // pages/api/webhook.ts (Next.js pages router)
 * export const config = { api: { bodyParser: false } };
 * export default webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) });
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers) {
  return (req: NodeRequest, res: NodeResponse): Promise<void> =>
    answerRequest(receiver, nodeAdapterRequest(req, HINTS), {
      handlers,
      send: (answer) => sendNodeAnswer(req, res, answer),
    }).catch(logUnexpected);
}

/**
 * Verifies only: resolves to the event, or answers the refusal itself and resolves to
 * `undefined`. No dedup runs here.
 *
 * @example
 * ```ts
 * const event = await verifyWebhook(receiver)(req, res);
 * if (event) res.writeHead(200).end(JSON.stringify({ ok: true }));
 * ```
 */
export function verifyWebhook(receiver: Receiver) {
  return (req: NodeRequest, res: NodeResponse): Promise<WebhookEvent | undefined> =>
    verifyRequest(receiver, nodeAdapterRequest(req, HINTS))
      .then((result) => {
        if ('event' in result) return result.event;
        sendNodeAnswer(req, res, result.answer);
        return undefined;
      })
      .catch((error: unknown) => {
        logUnexpected(error);
        return undefined;
      });
}
