import { okAnswer } from '../dedup/store.js';
import type { WebhookError } from '../errors/webhook-error.js';
import { type Answer, errorAnswer } from '../receiver/answers.js';

/**
 * The answer an adapter writes back: status, headers and the JSON text.
 * @group Adapter kit
 */
export interface HttpAnswer extends Answer {
  headers: Record<string, string>;
  text: string;
  /**
   * True when the connection must not carry another request: a refusal made before the body
   * was read (401, 405, 413). The headers say `Connection: close`; a Node adapter stops
   * reading and closes the socket once the answer is out, so an unauthenticated flood costs
   * headers, not bodies.
   */
  close: boolean;
  /**
   * Set on a 413 to a sender that held a valid token: instead of stopping, read and throw
   * away the rest of the body, up to `maxBytes` or `maxMs`, then close. A client that writes
   * its whole body before reading (most do) then sees its 413 instead of a reset.
   */
  discard?: DiscardLimits;
}

/**
 * How much of a refused body to read and throw away before closing: what nginx calls a
 * lingering close.
 * @group Adapter kit
 */
export interface DiscardLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * What happens to the connection after an answer: `keep` it for the next request, `close`
 * it at once (reading no more), or `discard` the rest of an authenticated sender's body first.
 * @group Adapter kit
 */
export type AfterAnswer = 'keep' | 'close' | 'discard';

/** Options of {@link toHttp}. */
export interface ToHttpOptions {
  /** What happens to the connection. Default `keep`. */
  after?: AfterAnswer;
  /** The receiver's limit, which bounds what `discard` reads: 4 × it. */
  maxBodyBytes?: number;
}

const PLAIN_OK = okAnswer();
const PLAIN_OK_TEXT = JSON.stringify(PLAIN_OK);
// nginx's lingering_time is 30 s; the service gives up on an answer after 10 s anyway.
const DISCARD_MS = 10_000;
const KEEP: ToHttpOptions = {};

/**
 * The core's answer as HTTP: the status stays the core's, the kit only adds headers, the JSON
 * text and what happens to the connection afterwards.
 *
 * @example
 * ```ts
 * const http = toHttp(await admission.handle(bytes, handlers));
 * res.writeHead(http.status, http.headers).end(http.text);
 * ```
 * @group Adapter kit
 */
export function toHttp(answer: Answer, options: ToHttpOptions = KEEP): HttpAnswer {
  const after = options.after ?? 'keep';
  const close = after !== 'keep';
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (answer.status === 405) headers.allow = 'POST';
  if (answer.headers) Object.assign(headers, answer.headers);
  if (close) headers.connection = 'close';
  // Most answers are the one shared `{ ok: true }`, whose text never changes.
  const text = answer.body === PLAIN_OK ? PLAIN_OK_TEXT : JSON.stringify(answer.body);
  const http: HttpAnswer = { status: answer.status, body: answer.body, headers, text, close };
  if (after === 'discard') http.discard = { maxBytes: 4 * (options.maxBodyBytes ?? 0), maxMs: DISCARD_MS };
  return http;
}

/**
 * The answer to a failure an adapter meets outside the receiver (an event that is no HTTP
 * request, an unexpected throw): the same JSON shape and headers as every other answer.
 *
 * @example
 * ```ts
 * return toFetchResponse(errorHttpAnswer(new WebhookError('internal_error', 'unexpected failure in the h3 adapter')));
 * ```
 * @group Adapter kit
 */
export function errorHttpAnswer(error: WebhookError): HttpAnswer {
  return toHttp(errorAnswer(error));
}

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * The status line's text for every status the receiver answers (`413 Payload Too Large`), for
 * hosts that want it spelled out, such as an ALB's `statusDescription`.
 *
 * @example
 * ```ts
 * statusLine(413); // '413 Payload Too Large'
 * ```
 * @group Adapter kit
 */
export function statusLine(status: number): string {
  const reason = REASONS[status];
  return reason ? `${status} ${reason}` : String(status);
}

/**
 * The headers to hand a host that owns the connection (a Fetch runtime, API Gateway, h3's own
 * writer): the answer's, without `Connection`, which only a Node socket's owner may act on.
 *
 * @example
 * ```ts
 * return new Response(answer.text, { status: answer.status, headers: forwardedHeaders(answer) });
 * ```
 * @group Adapter kit
 */
export function forwardedHeaders(answer: HttpAnswer): Record<string, string> {
  if (!answer.close) return answer.headers;
  const { connection: _owned, ...headers } = answer.headers;
  return headers;
}

/**
 * A byte count as the size strings body parsers take (`express.raw({ limit })`,
 * `koa-bodyparser`'s `jsonLimit`): `10mb` for 10 MiB, else `kb`, else plain bytes. Adapters
 * use it so a fix they suggest matches the receiver's own `maxBodyBytes`.
 *
 * @example
 * ```ts
 * byteLimitText(receiver.maxBodyBytes); // '10mb' by default
 * ```
 * @group Adapter kit
 */
export function byteLimitText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}mb`;
  if (bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return `${bytes}b`;
}

/**
 * The answer as a Fetch `Response`, for adapters on Fetch runtimes (Bun, Deno, Workers, Hono).
 * A plain `Response` with text: Hono keeps headers other middleware set on the context, and
 * `@hono/node-server` writes such a Response without building web streams. The runtime, not
 * the adapter, closes a refused connection.
 *
 * @example
 * ```ts
 * return toFetchResponse(await serveRequest(receiver, { method: request.method, headers: request.headers, body: () => request }, handlers));
 * ```
 * @group Adapter kit
 */
export function toFetchResponse(answer: HttpAnswer): Response {
  // No `Connection: close` here: a Fetch runtime owns its sockets and already drops an unread
  // body; on Node bridges the header makes Node reset the socket before the answer is read.
  return new Response(answer.text, { status: answer.status, headers: forwardedHeaders(answer) });
}
