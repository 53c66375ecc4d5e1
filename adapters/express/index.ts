/**
 * The Express 4 and 5 adapter: moves bytes and headers between the framework and `receiver.handle`.
 *
 * @example
 * ```ts
 * import { webhookHandler } from 'webhook-cms-receiver/express';
 * app.post('/webhook', webhookHandler(receiver, handlers));
 * ```
 * @module webhook-cms-receiver/express
 */
import {
  serveRequest,
  verifyRequest,
  type AdapterRequest,
  type HttpAnswer,
  type Receiver,
  type RequestBody,
  type WebhookEvent,
  type WebhookHandlers,
} from 'webhook-cms-receiver';

/** The parts of an Express 4 or 5 request this adapter reads (a Node `IncomingMessage`). */
export interface ExpressRequest extends AsyncIterable<Uint8Array> {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  rawBody?: unknown;
  readableEnded?: boolean;
  resume?(): unknown;
  webhookEvent?: WebhookEvent;
}

/** The parts of an Express response this adapter writes (a Node `ServerResponse`). */
export interface ExpressResponse {
  writeHead(status: number, headers: Record<string, string>): { end(text: string): unknown };
}

/**
 * Express's `next`, called with the error when something outside a delivery's checks fails.
 * @inline
 */
type Next = (error?: unknown) => void;

/**
 * An Express 4/5 route handler that verifies, deduplicates and answers deliveries. Mount it
 * before `express.json()`, or behind `express.raw({ type: 'application/json', limit: '10mb' })`
 * (body-parser's own default limit is 100 KB, smaller than many articles).
 *
 * @example
 * ```ts
 * app.post('/webhook', webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) }));
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers: WebhookHandlers) {
  return (req: ExpressRequest, res: ExpressResponse, next?: Next): Promise<void> =>
    serveRequest(receiver, fromExpress(req), handlers).then((answer) => send(req, res, answer), next);
}

/**
 * Middleware that only verifies, puts the event on `req.webhookEvent` and calls `next()`;
 * you write the response. No dedup runs here.
 *
 * @example
 * ```ts
 * app.post('/webhook', verifyWebhook(receiver), (req, res) => res.json({ ok: true, type: req.webhookEvent.type }));
 * ```
 */
export function verifyWebhook(receiver: Receiver) {
  return (req: ExpressRequest, res: ExpressResponse, next: Next): Promise<void> =>
    verifyRequest(receiver, fromExpress(req)).then((result) => {
      if ('answer' in result) return send(req, res, result.answer);
      req.webhookEvent = result.event;
      next();
    }, next);
}

function fromExpress(req: ExpressRequest): AdapterRequest {
  return { method: req.method, headers: req.headers, body: () => bodyOf(req) };
}

function bodyOf(req: ExpressRequest): RequestBody {
  if (req.rawBody instanceof Uint8Array) return req.rawBody;
  if (req.body instanceof Uint8Array || typeof req.body === 'string') return req.body;
  // A parser consumed the stream and left only its parsed value behind.
  if (req.readableEnded) {
    return {
      alreadyParsed: 'a body parser such as express.json()',
      fix: "Mount the webhook route before express.json(), or give it express.raw({ type: 'application/json', limit: '10mb' }).",
    };
  }
  return req;
}

function send(req: ExpressRequest, res: ExpressResponse, answer: HttpAnswer): void {
  res.writeHead(answer.status, answer.headers).end(answer.text);
  // Discard what an oversized body still sends, as Node does for a body nobody read.
  if (!req.readableEnded) req.resume?.();
}
