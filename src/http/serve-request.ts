import { WebhookError } from '../errors/webhook-error.js';
import { describeThrown } from '../internal/describe.js';
import type { WebhookEvent } from '../events/types.js';
import { errorAnswer, okResponse, type HandleResult } from '../receiver/answers.js';
import type { Receiver } from '../receiver/create-receiver.js';
import { reject } from '../receiver/hooks.js';
import { getInternals } from '../receiver/internals.js';
import { matchToken } from '../receiver/verify-delivery.js';
import type { WebhookHandlers } from '../receiver/handlers.js';
import { headerLookup, type HeadersInput } from './headers.js';
import { isFetchBody, readFetchBody, readLimited, type BodyStream, type FetchBody } from './read-body.js';

/**
 * A body an adapter can hand over: already read, still a stream, a whole Fetch `Request`
 * (read with `arrayBuffer()` when its `Content-Length` allows), or consumed by a parser.
 */
export type RequestBody = Uint8Array | string | BodyStream | FetchBody | AlreadyParsed;

/** What an adapter hands over when a parser consumed the body first: who did, and the fix in that framework. */
export interface AlreadyParsed {
  alreadyParsed: string;
  fix: string;
}

/**
 * A request as an adapter sees it. The body is a function so that it is only read once the
 * cheap checks have passed.
 */
export interface AdapterRequest {
  method: string | undefined;
  headers: HeadersInput;
  body(): RequestBody | Promise<RequestBody>;
}

/** The answer an adapter writes back: status, headers and the JSON text. */
export interface HttpAnswer extends HandleResult {
  headers: Record<string, string>;
  text: string;
}

/**
 * All HTTP logic every adapter shares, so an adapter only translates: method, early size and
 * token checks, bounded body reading, then `receiver.handle`. Exported for users who write
 * an adapter for another framework.
 *
 * @example
 * ```ts
 * const answer = await serveRequest(receiver, { method: req.method, headers: req.headers, body: () => req }, handlers);
 * res.writeHead(answer.status, answer.headers).end(answer.text);
 * ```
 */
export async function serveRequest(
  receiver: Receiver,
  request: AdapterRequest,
  handlers: WebhookHandlers,
): Promise<HttpAnswer> {
  const read = await readRequest(receiver, request);
  return toHttp(
    read instanceof Uint8Array ? await receiver.handle({ headers: request.headers, body: read }, handlers) : read,
  );
}

/**
 * Like {@link serveRequest} but stops after verification, for middleware that lets the user
 * write the response. No dedup runs here: `verify` is pure.
 *
 * @example
 * ```ts
 * const result = await verifyRequest(receiver, { method: 'POST', headers: request.headers, body: () => request.body! });
 * if ('event' in result) console.log(result.event.type);
 * ```
 */
export async function verifyRequest(
  receiver: Receiver,
  request: AdapterRequest,
): Promise<{ event: WebhookEvent } | { answer: HttpAnswer }> {
  const read = await readRequest(receiver, request);
  if (!(read instanceof Uint8Array)) return { answer: toHttp(read) };
  try {
    return { event: await receiver.verify({ headers: request.headers, body: read }) };
  } catch (error) {
    // verify() itself is pure, so the refusal is reported here, as handle() would report it.
    return { answer: toHttp(errorAnswer(reject(getInternals(receiver)!.options, error, request.headers))) };
  }
}

/** Returns the body bytes, or the answer to send without reading further. */
async function readRequest(receiver: Receiver, request: AdapterRequest): Promise<Uint8Array | HandleResult> {
  const inside = getInternals(receiver);
  if (!inside) throw new TypeError('serveRequest needs a receiver made by createReceiver().');
  const { options, config } = inside;
  const refuse = (error: WebhookError) => errorAnswer(reject(options, error, request.headers));
  if (request.method?.toUpperCase() !== 'POST') {
    return refuse(new WebhookError('method_not_allowed', `${String(request.method)} is not POST`));
  }
  const headers = headerLookup(request.headers);
  const declared = Number(headers('content-length'));
  if (declared > config.maxBodyBytes) {
    return refuse(
      new WebhookError('payload_too_large', `Content-Length ${declared} is over maxBodyBytes ${config.maxBodyBytes}`),
    );
  }
  try {
    // An unauthenticated flood should cost headers, not bodies: the token check needs none.
    matchToken(config.tokens, headers('authorization'));
  } catch (error) {
    return refuse(error as WebhookError);
  }
  const body = await request.body();
  if (typeof body === 'object' && 'alreadyParsed' in body) {
    const error = new WebhookError(
      'body_already_parsed',
      `the request body was already parsed by ${body.alreadyParsed}, so the raw bytes the signature covers are gone. ${body.fix}`,
    );
    console.error(`webhook-cms-receiver: ${error.reason}`);
    return refuse(error);
  }
  let bytes: Uint8Array | string | undefined;
  try {
    if (typeof body === 'string' || body instanceof Uint8Array) bytes = body;
    else if (isFetchBody(body)) bytes = await readFetchBody(body, headers('content-length'), config.maxBodyBytes);
    else bytes = await readLimited(body, config.maxBodyBytes);
  } catch (cause) {
    return refuse(
      new WebhookError(
        'invalid_payload',
        `the body could not be read (did the client disconnect?): ${describeThrown(cause)}`,
        { cause },
      ),
    );
  }
  if (bytes === undefined)
    return refuse(
      new WebhookError('payload_too_large', `the body grew past maxBodyBytes ${config.maxBodyBytes} while reading`),
    );
  return typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
}

const PLAIN_OK = okResponse(undefined);
const PLAIN_OK_TEXT = JSON.stringify(PLAIN_OK);

function toHttp(result: HandleResult): HttpAnswer {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (result.status === 405) headers.allow = 'POST';
  // Most answers are the one shared `{ ok: true }`, whose text never changes.
  const text = result.body === PLAIN_OK ? PLAIN_OK_TEXT : JSON.stringify(result.body);
  return { status: result.status, body: result.body, headers, text };
}
