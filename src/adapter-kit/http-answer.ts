import { okAnswer } from '../dedup/store.js';
import type { Answer } from '../receiver/answers.js';

/**
 * The answer an adapter writes back: status, headers and the JSON text.
 * @group Adapter kit
 */
export interface HttpAnswer extends Answer {
  headers: Record<string, string>;
  text: string;
  /**
   * True when the request was refused before its body was read (401, 405, 413): the headers
   * say `Connection: close` and a Node adapter should stop reading and close the socket, so
   * an unauthenticated flood costs headers, not bodies.
   */
  close: boolean;
}

const PLAIN_OK = okAnswer();
const PLAIN_OK_TEXT = JSON.stringify(PLAIN_OK);

/** The core's answer as HTTP: the status stays the core's, the kit only adds headers and text. */
export function toHttp(answer: Answer, close: boolean): HttpAnswer {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (answer.status === 405) headers.allow = 'POST';
  if (close) headers.connection = 'close';
  // Most answers are the one shared `{ ok: true }`, whose text never changes.
  const text = answer.body === PLAIN_OK ? PLAIN_OK_TEXT : JSON.stringify(answer.body);
  return { status: answer.status, body: answer.body, headers, text, close };
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
  const { connection: _owned, ...headers } = answer.headers;
  return new Response(answer.text, { status: answer.status, headers });
}
