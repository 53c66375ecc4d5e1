import { WebhookError } from '../errors/webhook-error.js';
import { digitsValue, type HeaderLookup, headerLookup } from '../input/headers.js';
import { describeThrown } from '../internal/describe.js';
import { isThenable } from '../internal/maybe.js';
import type { AdmittedRequest, BodyHasher } from '../receiver/admission.js';
import { admittedLookup } from '../receiver/assembly/admit.js';
import type { Receiver } from '../receiver/assembly/create-receiver.js';
import { decodeBase64 } from './base64.js';
import { type AfterAnswer, type HttpAnswer, toHttp } from './http-answer.js';
import {
  type BodyStream,
  type ChunkListener,
  type FetchBody,
  isEventStream,
  isFetchBody,
  readFetchBody,
  readStream,
} from './read-body.js';
import type { AdapterRequest, AlreadyParsed, RequestBody } from './adapter-request.js';

/** What reading a request's body came to: its bytes, or the answer to send without reading further. */
export type Read = { bytes: Uint8Array | string } | { answer: HttpAnswer };

/** One body read: the admitted request, and where its outcome goes. */
export interface ReadRequest {
  receiver: Receiver;
  admission: AdmittedRequest;
  request: AdapterRequest;
  /** Gets the body within the limit, or the answer that ends the request; called once. */
  next(read: Read): void;
  /** Gets what threw where nothing should (a host object's throwing getter, say); then `next` is not called. */
  fail(error: unknown): void;
}

const FETCH_BODY_USED: AlreadyParsed = {
  alreadyParsed: 'request.json(), request.text() or a reader from request.body.getReader()',
  fix: 'Hand the Request to the webhook handler before anything reads its body, or hand over request.clone().',
};

/**
 * Reads the body within the limit, or finds the answer to send without reading further. A
 * body at hand, or one that arrives as Node stream events, is handed to `next` in the same
 * turn as its last chunk: no promise turn stands between it and the answer.
 */
export function readRequest(read: ReadRequest): void {
  let body: RequestBody | Promise<RequestBody>;
  try {
    body = read.request.body();
  } catch (cause) {
    return void read.next(notGot(read, cause));
  }
  // A Node stream is no promise: asking it for `then` first would cost Express, where a
  // property the request lacks is looked for along its whole prototype chain every time.
  // (A throwing getter here rejects through the caller's `fail`, as in `readBody`.)
  const events = isNodeStream(body);
  if (events || !isThenable(body)) return void readBody(read, body as RequestBody, events);
  body.then(
    (got) => readBody(read, got),
    (cause) => read.next(notGot(read, cause)),
  );
}

/** `stream`: whether `handed` is a Node stream, when the caller already asked. */
function readBody(read: ReadRequest, handed: RequestBody, stream?: boolean): void {
  let body = handed;
  let events = false;
  try {
    // A Node stream, the common case on Node hosts, skips the checks for the other shapes: on
    // Express, which swaps each request's prototype, every such read walks the whole chain.
    events = stream ?? isNodeStream(body);
    if (!events) {
      if (isFetchBody(body) && body.bodyUsed) body = FETCH_BODY_USED;
      if (typeof body === 'object' && body !== null && 'alreadyParsed' in body) {
        return void read.next({ answer: refuse(read, alreadyParsed(body)) });
      }
      if (typeof body === 'object' && body !== null && 'base64' in body) body = decodeBase64(body.base64);
    }
  } catch (error) {
    return void read.fail(error);
  }
  if (!events && (typeof body === 'string' || body instanceof Uint8Array)) return void deliver(read, body);
  readFrom(read, body as BodyStream | FetchBody, events);
}

function isNodeStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && isEventStream(body);
}

/** Reads a body that is still a stream (`events`: a Node stream), or a Fetch request. */
function readFrom(read: ReadRequest, stream: BodyStream | FetchBody, events: boolean): void {
  const failed = (cause: unknown): void => read.next(unreadable(read, stream, cause));
  try {
    const limit = read.receiver.maxBodyBytes;
    // Not asked of a Node stream: on Express a property the request lacks is looked for along
    // its whole prototype chain, on every request.
    if (!events && isFetchBody(stream)) {
      readFetchBody(stream, limit).then((bytes) => deliver(read, bytes), failed);
      return;
    }
    readStream(stream as BodyStream, {
      limit,
      onChunk: hashWhileReading(read),
      done: (bytes) => deliver(read, bytes),
      fail: failed,
      captureContext: read.request.captureContext,
    });
  } catch (cause) {
    failed(cause);
  }
}

/** Hands the bytes on, or the 400 or 413 they earn. */
function deliver(read: ReadRequest, bytes: Uint8Array | string | undefined): void {
  let answer: HttpAnswer;
  try {
    if (bytes === undefined) {
      const reason = `the body grew past maxBodyBytes ${read.receiver.maxBodyBytes} while reading`;
      // The token was good (the request was admitted): discard the rest, so a client that writes
      // before it reads sees the 413.
      answer = refuse(read, new WebhookError('payload_too_large', reason), 'discard');
    } else if (typeof bytes === 'string' && changedByDecoding(bytes, lookupOf(read))) {
      const reason =
        'a body parser decoded the body as text and changed its bytes (a byte-order mark or invalid UTF-8, which check 6 refuses anyway)';
      answer = refuse(read, new WebhookError('invalid_payload', reason));
    } else return void read.next({ bytes });
  } catch (error) {
    return void read.fail(error);
  }
  read.next({ answer });
}

/** The answer to a request refused after its admission; the connection is kept unless told otherwise. */
function refuse(read: ReadRequest, error: WebhookError, after: AfterAnswer = 'keep'): HttpAnswer {
  return toHttp(read.admission.refuse(error), { after, maxBodyBytes: read.receiver.maxBodyBytes });
}

function notGot(read: ReadRequest, cause: unknown): Read {
  const reason = `the adapter could not get the body: ${describeThrown(cause)}`;
  return { answer: refuse(read, new WebhookError('internal_error', reason)) };
}

function unreadable(read: ReadRequest, body: RequestBody, cause: unknown): Read {
  // Only now, after a failure: on some hosts (@hono/node-server) merely reading `.body`
  // builds a web stream, which would cost every delivery more than its HMAC.
  if (isFetchBody(body) && body.body?.locked) return { answer: refuse(read, alreadyParsed(FETCH_BODY_USED)) };
  const reason = `the body could not be read (did the client disconnect?): ${describeThrown(cause)}`;
  return { answer: refuse(read, new WebhookError('invalid_payload', reason, { cause })) };
}

/** The refusal of a body a parser consumed first: a host fault (500), logged by the receiver with the fix. */
function alreadyParsed(body: AlreadyParsed): WebhookError {
  return new WebhookError(
    'body_already_parsed',
    `the request body was already consumed by ${body.alreadyParsed}, so the raw bytes the signature covers are gone. ${body.fix}`,
  );
}

/** The admission's own header lookup, so the headers are not scanned a second time. */
function lookupOf(read: ReadRequest): HeaderLookup {
  return admittedLookup(read.admission) ?? headerLookup(read.request.headers);
}

/**
 * Whether text a parser kept (`ctx.request.rawBody`, a Lambda body) lost bytes in decoding:
 * its UTF-8 length differs from the declared `Content-Length`. Only a BOM or invalid UTF-8
 * change that way, and both are invalid payloads: answered 400 as check 6 would, not a 403
 * for a signature that the decoded text can no longer match (the service never retries a 403).
 */
function changedByDecoding(text: string, headers: HeaderLookup): boolean {
  const declared = declaredLength(headers);
  // Encoded, not counted in a loop: lone surrogates become U+FFFD's 3 bytes either way, and the
  // loop cost 84 B gzipped of every quick start for a path only kept text takes.
  return declared !== undefined && new TextEncoder().encode(text).byteLength !== declared;
}

/** The request's `Content-Length` when it is plain ASCII digits, else undefined. */
function declaredLength(headers: HeaderLookup): number | undefined {
  const declared = headers('content-length');
  return declared === undefined ? undefined : digitsValue(declared);
}

/**
 * A streamed body feeds the HMAC chunk by chunk as it arrives, so verification ends with the
 * last byte; the admission was made after the token check, so no unauthenticated body is hashed.
 * A body that arrives whole in its first chunk (its declared `Content-Length`, as a small
 * delivery does) gains nothing from that: no HMAC is started for it, and the core hashes it
 * once read, with the provider's cheapest HMAC for its size.
 */
function hashWhileReading(read: ReadRequest): ChunkListener | undefined {
  const { admission } = read;
  if (!admission.bodyHasher) return undefined;
  let hasher: BodyHasher | undefined | null = null;
  return (chunk) => {
    if (hasher === null) {
      if (chunk.byteLength === declaredLength(lookupOf(read))) return void (hasher = undefined);
      hasher = admission.bodyHasher?.();
    }
    hasher?.update(chunk);
  };
}
