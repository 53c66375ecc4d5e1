import type { AdapterRequest, AlreadyParsed, HttpAnswer, RequestBody } from 'webhook-cms-receiver/adapter-kit';
import { closeAfterAnswer, holdOpenBriefly, http2Headers, socketOf } from './connection.js';
import type { NodeRequest, NodeResponse } from './node-objects.js';
import { captureNodeContext } from './request-context.js';

/** How a framework's parsers show up on a Node request, and the fix in its own words. */
export interface ParserHints {
  /** Who consumed the body when a parser ran first, e.g. `express.json()`. */
  parser: string;
  /** What to change, in the framework's words, with the limit derived from `maxBodyBytes`. */
  fix: string;
}

const GENERIC: ParserHints = {
  parser: 'a body parser that ran before the webhook handler',
  fix: 'Give the webhook route the unread request, or keep the raw bytes on req.rawBody.',
};

/**
 * Describes a Node request for the adapter kit: every copy of each header, and the body as
 * raw bytes a host kept, the unread stream, or what a parser left (answered 500 with the
 * framework's fix, never a 403 the service would not retry).
 *
 * @example
 * ```ts
 * const answer = await serveRequest(receiver, nodeAdapterRequest(req), handlers);
 * sendNodeAnswer(req, res, answer);
 * ```
 */
export function nodeAdapterRequest(req: NodeRequest, options: NodeAdapterOptions = GENERIC): AdapterRequest {
  const { keptBody } = options;
  return {
    method: req.method,
    headers: nodeHeaders(req),
    body: () => keptBody?.() ?? nodeBody(req, options),
    captureContext: captureNodeContext,
  };
}

/**
 * Options of {@link nodeAdapterRequest}: the framework's parser hints, and where it keeps raw
 * bytes of its own (Koa's `ctx.request.rawBody`, Fastify's parsed `request.body`, h3's mock
 * requests), looked at before the Node request.
 */
export interface NodeAdapterOptions extends ParserHints {
  /** The body the framework kept, or undefined to read the Node request itself. */
  keptBody?: () => RequestBody | undefined;
}

/**
 * The first of the places a framework may keep the raw body that holds bytes or text, for a
 * `keptBody` option: the core encodes text back to the UTF-8 bytes it came from.
 *
 * @example
 * ```ts
 * nodeAdapterRequest(ctx.req, { ...hints, keptBody: () => keptRaw(ctx.request.rawBody) });
 * ```
 */
export function keptRaw(...places: unknown[]): Uint8Array | string | undefined {
  for (const place of places) if (typeof place === 'string' || place instanceof Uint8Array) return place;
  return undefined;
}

/**
 * The body if it is a stream nobody has read to its end (a content-type parser that passed the
 * request on unread), for a `keptBody` option; else undefined.
 *
 * @example
 * ```ts
 * nodeAdapterRequest(request.raw, { ...hints, keptBody: () => unreadStream(request.body) });
 * ```
 */
export function unreadStream(body: unknown): AsyncIterable<Uint8Array | string> | undefined {
  if (typeof body !== 'object' || body === null || !(Symbol.asyncIterator in body)) return undefined;
  return (body as { readableEnded?: boolean }).readableEnded === true ? undefined : (body as AsyncIterable<Uint8Array>);
}

/** How a framework writes an answer itself, and how it lets go of the response for one it must not. */
export interface FrameworkWriter<R> {
  /** Writes a keep-alive answer through the framework, so its hooks and request log see it. */
  write(answer: HttpAnswer): R;
  /** Tells the framework the response is written elsewhere (Fastify's `reply.hijack()`, Koa's `ctx.respond = false`). */
  detach?(): void;
}

/**
 * Writes an answer for a framework on Node: nothing when the response was already sent; a
 * refusal that closes the connection straight to the Node response ({@link sendNodeAnswer}),
 * since a framework would let Node end the socket at once and reset a client still sending
 * its body; every other answer through the framework.
 *
 * @example
 * ```ts
 * answerThrough(ctx.req, ctx.res, answer, { detach: () => (ctx.respond = false), write: (http) => (ctx.body = http.text) });
 * ```
 */
export function answerThrough<R>(
  req: NodeRequest,
  res: NodeResponse,
  answer: HttpAnswer,
  writer: FrameworkWriter<R>,
): R | undefined {
  if (res.headersSent || res.writableEnded) return undefined;
  if (!answer.close) return writer.write(answer);
  writer.detach?.();
  sendNodeAnswer(req, res, answer);
  return undefined;
}

/**
 * `req.headers`, unless the request repeats `Authorization`: Node keeps only the first copy
 * of it there, so a `[good, bad]` pair would pass. Then every copy of every header
 * (`headersDistinct`), which the core refuses as a repeated header. Scanning `rawHeaders` by
 * length first keeps the common case nearly free; `headersDistinct` builds arrays for all.
 */
function nodeHeaders(req: NodeRequest): NodeRequest['headers'] {
  const raw = req.rawHeaders;
  if (!raw) return req.headersDistinct ?? req.headers;
  let copies = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') copies++;
  }
  return copies > 1 ? (req.headersDistinct ?? distinctHeaders(raw)) : req.headers;
}

/** Every copy of every header, from rawHeaders: HTTP/2 compat requests have no headersDistinct. */
function distinctHeaders(raw: readonly string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) (headers[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return headers;
}

function nodeBody(req: NodeRequest, hints: ParserHints): RequestBody {
  if (req.rawBody instanceof Uint8Array) return req.rawBody;
  // An unread stream is the common case; `req.body` is not touched, as on Vercel it is a getter that parses.
  if (!req.readableEnded) return req;
  if (req.body instanceof Uint8Array) return req.body;
  const parsed: AlreadyParsed = {
    alreadyParsed:
      typeof req.body === 'string' ? `${hints.parser} (a text parser, whose charset may differ)` : hints.parser,
    fix: hints.fix,
  };
  return parsed;
}

/**
 * Writes an answer, unless something else already answered (a timeout middleware, say): a
 * second write would throw inside a promise no framework listens to. After a refusal made
 * before the body was read, the connection is closed once the answer is out (see
 * {@link closeAfterAnswer}).
 *
 * @example
 * ```ts
 * sendNodeAnswer(req, res, await serveRequest(receiver, nodeAdapterRequest(req), handlers));
 * ```
 */
export function sendNodeAnswer(req: NodeRequest, res: NodeResponse, answer: HttpAnswer): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const socket = answer.close ? socketOf(req, res) : undefined;
  if (socket) holdOpenBriefly(socket);
  try {
    // The version only matters for a header HTTP/2 forbids: Express requests pay a look along
    // their prototype chain for each property read, so a keep-alive answer reads none.
    const { headers } = answer;
    res.writeHead(
      answer.status,
      'connection' in headers && req.httpVersionMajor === 2 ? http2Headers(headers) : headers,
    );
    res.end(answer.text);
  } catch (error) {
    console.error('webhook-cms-receiver: could not write the answer:', error);
    return;
  }
  if (socket) closeAfterAnswer(req, res, answer);
}
