import type { WebhookEvent } from '../events/types.js';
import type { BodyInput } from '../input/body.js';
import type { HeadersInput } from '../input/headers.js';
import type { WebhookError } from '../errors/webhook-error.js';
import type { Answer } from './answers.js';
import type { WebhookHandlers } from './handlers.js';

/**
 * What an adapter knows before reading the body: the request line and headers.
 * @group Adapter kit
 */
export interface RequestHead {
  method: string | undefined;
  headers: HeadersInput;
}

/**
 * The verdict on a request's head, from {@link webhook-cms-receiver!Receiver.admit | Receiver.admit}. A refused request is answered
 * without reading its body; an admitted one carries on with its body.
 * @group Adapter kit
 */
export type Admission = RefusedRequest | AdmittedRequest;

/**
 * A request refused on its head alone (405, 413, 401): answer it and read no further.
 * @group Adapter kit
 */
export interface RefusedRequest {
  readonly admitted: false;
  readonly answer: Answer;
  /**
   * True when the refused request held a valid token (a 413 for its declared size): the
   * sender is the service, so its body is discarded rather than cut off, and a client that
   * writes the whole body before reading still sees the 413.
   */
  readonly authenticated?: boolean;
}

/**
 * A request whose method, declared size and token passed; the token is not checked again.
 * @group Adapter kit
 */
export interface AdmittedRequest {
  readonly admitted: true;
  /** Like `receiver.handle`, for this request's body. Never rejects. */
  handle(body: BodyInput, handlers?: WebhookHandlers): Promise<Answer>;
  /** Like `receiver.verify`, but a refusal is reported to `onRejected` and resolved as its answer. */
  verify(body: BodyInput): Promise<{ event: WebhookEvent } | { answer: Answer }>;
  /** Answers a fault the adapter found while reading the body, reporting it to `onRejected`. */
  refuse(error: WebhookError): Answer;
  /**
   * For adapters that read the body as a stream: an HMAC of this request's signed message,
   * to feed every body chunk as it arrives, in order, so the signature is settled by the
   * last byte instead of hashing the whole body again. The next `handle` or `verify` then
   * uses its result, but only for a body of exactly the length fed (any other is hashed
   * whole). Feed it exactly the bytes you hand over. Undefined when the crypto provider cannot
   * stream (Web Crypto) or the timestamp header is unusable (the usual checks then refuse it,
   * in the contract's order). Absent on admissions made by other implementations.
   *
   * @example
   * ```ts
   * const hasher = admission.bodyHasher?.();
   * req.on('data', (chunk) => { chunks.push(chunk); hasher?.update(chunk); });
   * ```
   */
  bodyHasher?(): BodyHasher | undefined;
  /**
   * Waits for the token decision the head could not make (a token source still being read, a
   * tenant being looked up) and resolves to the final admission: refused (401, or 503 in a
   * rotation window) with no body read, or admitted. Undefined when the head made it, as it
   * always does for a fixed token, and on a second call. Call it before reading the body: an
   * adapter that reads first reads unauthenticated bodies whole. `serveRequest` in the adapter
   * kit does this. Absent on admissions made by other implementations.
   *
   * @example
   * ```ts
   * let admission = receiver.admit({ method: req.method, headers: req.headers });
   * if (admission.admitted) admission = (await admission.settle?.()) ?? admission;
   * ```
   */
  settle?(): Promise<Admission> | undefined;
}

/**
 * Takes a request's body chunk by chunk while it streams in, from {@link AdmittedRequest.bodyHasher}.
 * @group Adapter kit
 */
export interface BodyHasher {
  /** The next bytes of the body, in the order they arrived. */
  update(chunk: Uint8Array): void;
}
