import { WebhookError } from '../errors/webhook-error.js';

/** The raw body exactly as received. A Node `Buffer` is a `Uint8Array`. */
export type BodyInput = Uint8Array | ArrayBuffer | ArrayBufferView | string;

const encoder = new TextEncoder();

/**
 * Check 1 of the contract, and the one conversion every later check shares: the body as
 * bytes, no larger than `maxBodyBytes`. Bytes are viewed, never copied. Undefined when the
 * body is not raw bytes at all: that is refused by {@link notRawBody}, but only after the
 * token check, so an unauthenticated caller learns nothing from the body it sent.
 */
export function bodyBytes(body: unknown, maxBodyBytes: number): Uint8Array | undefined {
  const bytes = asBytes(body, maxBodyBytes);
  if (bytes && bytes.byteLength > maxBodyBytes) throw tooLarge(bytes.byteLength, maxBodyBytes);
  return bytes;
}

/** The refusal of a body that is not raw bytes, with a reason that names the likely cause. */
export function notRawBody(body: unknown): WebhookError {
  return new WebhookError('invalid_payload', notRawReason(body));
}

function asBytes(body: unknown, maxBodyBytes: number): Uint8Array | undefined {
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') {
    // Every UTF-16 unit takes at least one UTF-8 byte, so an over-long string is refused unencoded.
    if (body.length > maxBodyBytes) throw tooLarge(body.length, maxBodyBytes);
    return encoder.encode(body);
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

function tooLarge(size: number, max: number): WebhookError {
  return new WebhookError('payload_too_large', `the body has at least ${size} bytes; maxBodyBytes is ${max}`);
}

function notRawReason(body: unknown): string {
  const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
  const hint =
    kind === 'object'
      ? ' It looks already parsed: a JSON body parser (such as express.json()) ran before the webhook route, and the signature can only be checked over the raw bytes. Mount the webhook route first, or use express.raw({ type: "application/json", limit: "10mb" }).'
      : '';
  return `the body must be the raw bytes (Uint8Array, Buffer, ArrayBuffer or string), got ${kind}.${hint}`;
}
