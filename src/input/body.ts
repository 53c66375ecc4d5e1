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

/**
 * The refusal of a body that is not raw bytes. An object means a parser got there first: a
 * fault of the host (500), not of the delivery, so the service retries once it is fixed.
 */
export function notRawBody(body: unknown): WebhookError {
  const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
  const expected = `the body must be the raw bytes (Uint8Array, Buffer, ArrayBuffer or string), got ${kind}`;
  if (kind !== 'object' && kind !== 'an array') return new WebhookError('invalid_payload', `${expected}.`);
  return new WebhookError(
    'body_already_parsed',
    `${expected}: it looks already parsed by a JSON body parser, and the signature can only be checked over ` +
      'the raw bytes. Hand over the bytes as received (the framework adapters read them for you).',
  );
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
