/**
 * The Express 4 and 5 adapter, built on the `node:http` one.
 *
 * @example
 * ```ts
 * import { webhookHandler } from 'webhook-cms-receiver/express';
 * app.post('/webhook', webhookHandler(receiver, handlers));
 * ```
 * @module webhook-cms-receiver/express
 */
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { byteLimitText, answerRequest, verifyRequest } from 'webhook-cms-receiver/adapter-kit';
import {
  logUnexpected,
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
  sendNodeAnswer,
} from 'webhook-cms-receiver/node';

declare global {
  // Declaration merging with Express's own Request type, so `req.webhookEvent` needs no cast.
  namespace Express {
    interface Request {
      /** Set by `verifyWebhook` from `webhook-cms-receiver/express`. */
      webhookEvent?: WebhookEvent;
    }
  }
}

/** The parts of an Express 4 or 5 request this adapter reads (a Node `IncomingMessage`). */
export interface ExpressRequest extends NodeRequest {
  webhookEvent?: WebhookEvent;
}

/** The parts of an Express response this adapter writes (a Node `ServerResponse`). */
export type ExpressResponse = NodeResponse;

/**
 * Express's `next`.
 * @inline
 */
type Next = (error?: unknown) => void;

function hints(receiver: Receiver): ParserHints {
  const raw = `express.raw({ type: 'application/json', limit: '${byteLimitText(receiver.maxBodyBytes)}' })`;
  return {
    parser: 'a body parser such as express.json() or express.text()',
    fix: `Mount the webhook route before express.json(), or give it ${raw} (body-parser's own limit is 100kb).`,
  };
}

/**
 * An Express 4/5 route handler that verifies, deduplicates and answers deliveries. Mount it
 * before `express.json()`, or behind `express.raw({ type: 'application/json', limit: '10mb' })`.
 * The promise it returns never rejects (Express 4 ignores returned promises), and it never
 * writes to a response that other middleware already answered.
 *
 * @example
 * ```ts
 * app.post('/webhook', webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) }));
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers) {
  const parserHints = hints(receiver);
  return (req: ExpressRequest, res: ExpressResponse, _next?: Next): Promise<void> =>
    answerRequest(receiver, nodeAdapterRequest(req, parserHints), {
      handlers,
      send: (answer) => sendNodeAnswer(req, res, answer),
    }).catch(logUnexpected);
}

/**
 * Middleware that only verifies, puts the event on `req.webhookEvent` and calls `next()`;
 * you write the response. No dedup runs here.
 *
 * @example
 * ```ts
 * app.post('/webhook', verifyWebhook(receiver), (req, res) => res.json({ ok: true, type: req.webhookEvent?.type }));
 * ```
 */
export function verifyWebhook(receiver: Receiver) {
  const parserHints = hints(receiver);
  return (req: ExpressRequest, res: ExpressResponse, next: Next): Promise<void> =>
    verifyRequest(receiver, nodeAdapterRequest(req, parserHints))
      .then((result) => {
        if ('answer' in result) return sendNodeAnswer(req, res, result.answer);
        req.webhookEvent = result.event;
        next();
      })
      .catch(logUnexpected);
}
