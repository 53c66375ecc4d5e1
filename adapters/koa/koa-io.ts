import {
  type AdapterRequest,
  byteLimitText,
  type HttpAnswer,
  type Receiver,
  type RequestBody,
} from 'webhook-cms-receiver';
import {
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
  sendNodeAnswer,
} from 'webhook-cms-receiver/node';

/**
 * The parts of a Koa 2 or 3 context this adapter reads and writes, described without Koa's
 * types so one adapter fits both majors.
 */
export interface KoaContextLike {
  /** The Node request underneath. */
  req: NodeRequest;
  /** The Node response underneath. */
  res: NodeResponse;
  /** Koa's request: a body parser may have left `body` and `rawBody` on it. */
  request: object;
  /** Where `verifyWebhook` puts the event. */
  state: object;
  status: number;
  body: unknown;
  respond?: boolean | undefined;
  set(fields: Record<string, string>): unknown;
}

/** What Koa body parsers leave on `ctx.request`. */
interface ParsedRequest {
  body?: unknown;
  rawBody?: unknown;
}

// Where koa-body with `includeUnparsed: true` keeps the text it parsed.
const UNPARSED = Symbol.for('unparsedBody');

/** The Koa fix for a body a parser consumed, with the receiver's own limit. */
export function koaHints(receiver: Receiver): ParserHints {
  const limit = byteLimitText(receiver.maxBodyBytes);
  return {
    parser: 'a body parser that kept no raw body (koa-body without includeUnparsed, or one of your own)',
    fix: `Mount the webhook middleware before the body parser (app.use order), or let the parser keep the raw body: koa-bodyparser and @koa/bodyparser keep ctx.request.rawBody (give them jsonLimit: '${limit}'), koa-body needs includeUnparsed: true.`,
  };
}

/**
 * Describes a Koa context for the adapter kit: every copy of each header, and the body as the
 * raw text a body parser kept (`ctx.request.rawBody`, koa-body's unparsed body), raw bytes the
 * host kept on `ctx.req.rawBody`, or the unread request.
 */
export function koaAdapterRequest(ctx: KoaContextLike, hints: ParserHints): AdapterRequest {
  const node = nodeAdapterRequest(ctx.req, hints);
  return { method: node.method, headers: node.headers, body: () => keptBody(ctx.request) ?? node.body() };
}

function keptBody(request: ParsedRequest): RequestBody | undefined {
  const { rawBody, body } = request;
  // The parsers decode the bytes as UTF-8 (their default), which the core encodes back exactly.
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  if (body instanceof Uint8Array) return body;
  const unparsed = typeof body === 'object' && body !== null ? (body as Record<symbol, unknown>)[UNPARSED] : undefined;
  return typeof unparsed === 'string' || unparsed instanceof Uint8Array ? unparsed : undefined;
}

/**
 * Writes an answer, unless the response was already sent. A refusal made before the body was
 * read bypasses Koa: on `Connection: close` Node would end the socket at once and reset a
 * client still sending its body before it read the answer, so the Node helper half-closes it
 * and stops reading instead. Every other answer goes through Koa, so upstream middleware
 * (loggers, headers) see it as usual.
 */
export function sendKoaAnswer(ctx: KoaContextLike, answer: HttpAnswer): void {
  if (ctx.res.headersSent || ctx.res.writableEnded) return;
  ctx.status = answer.status;
  if (answer.close) {
    ctx.respond = false;
    sendNodeAnswer(ctx.req, ctx.res, answer);
    return;
  }
  ctx.set(answer.headers);
  ctx.body = answer.text;
}
