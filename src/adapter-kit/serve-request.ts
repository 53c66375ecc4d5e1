import { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { ASCII_DIGITS, headerLookup, type HeadersInput } from '../input/headers.js';
import { describeThrown } from '../internal/describe.js';
import type { AdmittedRequest, BodyHasher, RefusedRequest } from '../receiver/admission.js';
import type { Receiver } from '../receiver/create-receiver.js';
import type { WebhookHandlers } from '../receiver/handlers.js';
import { type AfterAnswer, type HttpAnswer, toHttp } from './http-answer.js';
import { decodeBase64 } from './base64.js';
import {
  type BodyStream,
  type ChunkListener,
  type FetchBody,
  isFetchBody,
  readFetchBody,
  readLimited,
} from './read-body.js';

/**
 * A body an adapter can hand over: already read, still a stream, a whole Fetch `Request`
 * (read with `arrayBuffer()` when its `Content-Length` allows), or consumed by a parser.
 * @group Adapter kit
 */
export type RequestBody = Uint8Array | string | BodyStream | FetchBody | AlreadyParsed | Base64Body;

/**
 * A body a platform handed over base64-encoded (AWS Lambda's `isBase64Encoded`): the kit
 * decodes it, on every runtime.
 * @group Adapter kit
 */
export interface Base64Body {
  base64: string;
}

/**
 * What an adapter hands over when a parser consumed the body first: who did, and the fix in
 * that framework's own words. Answered 500 `Server misconfigured` with one log line.
 * @group Adapter kit
 */
export interface AlreadyParsed {
  alreadyParsed: string;
  fix: string;
}

/**
 * A request as an adapter sees it. The body is a function so that it is only read once the
 * method, size and token have passed.
 * @group Adapter kit
 */
export interface AdapterRequest {
  method: string | undefined;
  headers: HeadersInput;
  body(): RequestBody | Promise<RequestBody>;
}

/**
 * All HTTP logic every adapter shares, so an adapter only translates: the receiver's
 * admission of the head (method, declared size, token), bounded body reading, then the
 * handling. Never rejects: every outcome, a throwing body reader included, is an answer.
 *
 * @example
 * ```ts
 * const answer = await serveRequest(receiver, { method: req.method, headers: req.headers, body: () => req }, handlers);
 * res.writeHead(answer.status, answer.headers).end(answer.text);
 * ```
 * @group Adapter kit
 */
export async function serveRequest(
  receiver: Receiver,
  request: AdapterRequest,
  handlers?: WebhookHandlers,
): Promise<HttpAnswer> {
  const admission = receiver.admit(request);
  if (!admission.admitted) return refusedHead(receiver, admission);
  const read = await readRequest(receiver, admission, request);
  if ('answer' in read) return read.answer;
  return toHttp(await admission.handle(read.bytes, handlers));
}

/**
 * Like {@link serveRequest} but stops after verification, for middleware that lets the user
 * write the response. No dedup runs here; a refusal is reported to `onRejected`.
 *
 * @example
 * ```ts
 * const result = await verifyRequest(receiver, { method: 'POST', headers: request.headers, body: () => request });
 * if ('event' in result) console.log(result.event.type);
 * ```
 * @group Adapter kit
 */
export async function verifyRequest(
  receiver: Receiver,
  request: AdapterRequest,
): Promise<{ event: WebhookEvent } | { answer: HttpAnswer }> {
  const admission = receiver.admit(request);
  if (!admission.admitted) return { answer: refusedHead(receiver, admission) };
  const read = await readRequest(receiver, admission, request);
  if ('answer' in read) return read;
  const verified = await admission.verify(read.bytes);
  return 'event' in verified ? verified : { answer: toHttp(verified.answer) };
}

/** A refusal on the head alone: the connection closes, after discarding the body if the service sent it. */
function refusedHead(receiver: Receiver, refused: RefusedRequest): HttpAnswer {
  return toHttp(refused.answer, {
    after: refused.authenticated ? 'discard' : 'close',
    maxBodyBytes: receiver.maxBodyBytes,
  });
}

const FETCH_BODY_USED: AlreadyParsed = {
  alreadyParsed: 'request.json(), request.text() or a reader from request.body.getReader()',
  fix: 'Hand the Request to the webhook handler before anything reads its body, or hand over request.clone().',
};

/** The refusal of a body a parser consumed first: a host fault (500), logged by the receiver with the fix. */
function alreadyParsed(body: AlreadyParsed): WebhookError {
  return new WebhookError(
    'body_already_parsed',
    `the request body was already consumed by ${body.alreadyParsed}, so the raw bytes the signature covers are gone. ${body.fix}`,
  );
}

type Read = { bytes: Uint8Array | string } | { answer: HttpAnswer };

/** The body within the limit, or the answer to send without reading further. */
async function readRequest(receiver: Receiver, admission: AdmittedRequest, request: AdapterRequest): Promise<Read> {
  const refuse = (error: WebhookError, after: AfterAnswer = 'keep'): Read => ({
    answer: toHttp(admission.refuse(error), { after, maxBodyBytes: receiver.maxBodyBytes }),
  });
  let body: RequestBody;
  try {
    body = await request.body();
  } catch (cause) {
    return refuse(new WebhookError('internal_error', `the adapter could not get the body: ${describeThrown(cause)}`));
  }
  if (isFetchBody(body) && body.bodyUsed) body = FETCH_BODY_USED;
  if (typeof body === 'object' && body !== null && 'alreadyParsed' in body) return refuse(alreadyParsed(body));
  if (typeof body === 'object' && body !== null && 'base64' in body) body = decodeBase64(body.base64);
  let bytes: Uint8Array | string | undefined;
  try {
    if (typeof body === 'string' || body instanceof Uint8Array) bytes = body;
    else if (isFetchBody(body)) bytes = await readFetchBody(body, receiver.maxBodyBytes);
    else bytes = await readLimited(body, receiver.maxBodyBytes, hashWhileReading(admission, request.headers));
  } catch (cause) {
    // Only now, after a failure: on some hosts (@hono/node-server) merely reading `.body`
    // builds a web stream, which would cost every delivery more than its HMAC.
    if (isFetchBody(body) && body.body?.locked) return refuse(alreadyParsed(FETCH_BODY_USED));
    const reason = `the body could not be read (did the client disconnect?): ${describeThrown(cause)}`;
    return refuse(new WebhookError('invalid_payload', reason, { cause }));
  }
  if (typeof bytes === 'string' && changedByDecoding(bytes, request.headers)) {
    const reason =
      'a body parser decoded the body as text and changed its bytes (a byte-order mark or invalid UTF-8, which check 6 refuses anyway)';
    return refuse(new WebhookError('invalid_payload', reason));
  }
  if (bytes === undefined) {
    const reason = `the body grew past maxBodyBytes ${receiver.maxBodyBytes} while reading`;
    // The token was good (the request was admitted): discard the rest, so a client that writes
    // before it reads sees the 413.
    return refuse(new WebhookError('payload_too_large', reason), 'discard');
  }
  return { bytes };
}

/**
 * Whether text a parser kept (`ctx.request.rawBody`, a Lambda body) lost bytes in decoding:
 * its UTF-8 length differs from the declared `Content-Length`. Only a BOM or invalid UTF-8
 * change that way, and both are invalid payloads: answered 400 as check 6 would, not a 403
 * for a signature that the decoded text can no longer match (the service never retries a 403).
 */
function changedByDecoding(text: string, headers: AdapterRequest['headers']): boolean {
  const declared = declaredLength(headers);
  return declared !== undefined && utf8Length(text) !== declared;
}

/** The request's `Content-Length` when it is plain ASCII digits, else undefined. */
function declaredLength(headers: HeadersInput): number | undefined {
  const declared = headerLookup(headers)('content-length');
  return declared !== undefined && ASCII_DIGITS.test(declared) ? Number(declared) : undefined;
}

/** The UTF-8 length of a string, without encoding it. Lone surrogates count as U+FFFD would. */
function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

/**
 * A streamed body feeds the HMAC chunk by chunk as it arrives, so verification ends with the
 * last byte; the admission was made after the token check, so no unauthenticated body is hashed.
 * A body that arrives whole in its first chunk (its declared `Content-Length`, as a small
 * delivery does) gains nothing from that: no HMAC is started for it, and the core hashes it
 * once read, with the provider's cheapest HMAC for its size.
 */
function hashWhileReading(admission: AdmittedRequest, headers: HeadersInput): ChunkListener | undefined {
  if (!admission.bodyHasher) return undefined;
  let hasher: BodyHasher | undefined | null = null;
  return (chunk) => {
    if (hasher === null) {
      if (chunk.byteLength === declaredLength(headers)) return void (hasher = undefined);
      hasher = admission.bodyHasher?.();
    }
    hasher?.update(chunk);
  };
}
