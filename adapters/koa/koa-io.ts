import type { Receiver } from 'webhook-cms-receiver';
import { type AdapterRequest, byteLimitText, type HttpAnswer } from 'webhook-cms-receiver/adapter-kit';
import {
  answerThrough,
  keptRaw,
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
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
  const { rawBody, body } = ctx.request as ParsedRequest;
  const unparsed = typeof body === 'object' && body !== null ? (body as Record<symbol, unknown>)[UNPARSED] : undefined;
  // The parsers decode the bytes as UTF-8 (their default), which the core encodes back exactly.
  const kept = () => keptRaw(rawBody, body instanceof Uint8Array ? body : undefined, unparsed);
  // Spelled out: a spread with a property after it costs a microsecond a request on Node 20.
  return nodeAdapterRequest(ctx.req, { parser: hints.parser, fix: hints.fix, keptBody: kept });
}

/**
 * Writes an answer, unless the response was already sent: a refusal that closes the
 * connection bypasses Koa (see `answerThrough`); every other answer goes through Koa, so
 * upstream middleware (loggers, headers) see it as usual.
 */
export function sendKoaAnswer(ctx: KoaContextLike, answer: HttpAnswer): void {
  ctx.status = answer.status;
  answerThrough(ctx.req, ctx.res, answer, {
    detach: () => (ctx.respond = false),
    write: (http) => {
      ctx.set(http.headers);
      ctx.body = http.text;
    },
  });
}
