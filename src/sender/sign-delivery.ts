import { encodeHex } from './hex.js';
import { hmacSha256 } from './hmac-sha256.js';

/** Options of {@link signDelivery}. */
export interface SignDeliveryOptions {
  /** The token to sign with (and send as the Bearer credential). */
  token: string;
  /** The envelope, serialised with `JSON.stringify`; or the exact raw body as a string or bytes. */
  payload: object | string | Uint8Array;
  /** Unix seconds for `X-Service-Timestamp`. Default: now. */
  timestamp?: number | string;
  /** `X-Service-Delivery-Id`. Default: a random UUID; `null` leaves the header out. */
  deliveryId?: string | null;
}

/**
 * A delivery ready to send: the headers and body exactly as the service sends them. `Body` is
 * what {@link signDelivery} knows of it: `string` for a payload object or string, bytes for bytes.
 */
export interface SignedDelivery<Body extends string | Uint8Array<ArrayBuffer> = string | Uint8Array<ArrayBuffer>> {
  headers: Record<string, string>;
  /** Typed so that it can be passed straight to `fetch` or `new Request`. */
  body: Body;
}

const encoder = new TextEncoder();

/**
 * Signs a delivery exactly as the service does: HMAC-SHA256 keyed with the token over
 * `<timestamp>.<raw body>`, sent with the Bearer token, timestamp, event and delivery id.
 * Synchronous on every runtime.
 *
 * @example
 * ```ts
 * const { headers, body } = signDelivery({ token: 'test-token', payload: articleSyncPayload() });
 * const response = await fetch('http://127.0.0.1:3000/webhook', { method: 'POST', headers, body });
 * const sent = JSON.parse(body); // a string: the payload was an object
 * ```
 */
// The body's type follows the payload's: bytes stay bytes, anything else becomes a string, and a
// type that may be either (`object` takes a `Uint8Array` too) gives either.
export function signDelivery<Payload extends SignDeliveryOptions['payload']>(
  options: SignDeliveryOptions & { payload: Payload },
): SignedDelivery<
  Payload extends Uint8Array
    ? Uint8Array<ArrayBuffer>
    : Uint8Array extends Payload
      ? string | Uint8Array<ArrayBuffer>
      : string
>;
export function signDelivery(options: SignDeliveryOptions): SignedDelivery {
  const { token, payload } = options;
  if (typeof token !== 'string' || token === '') throw new TypeError('signDelivery: token must be a non-empty string.');
  const body =
    typeof payload === 'string'
      ? payload
      : payload instanceof Uint8Array
        ? new Uint8Array(payload)
        : JSON.stringify(payload);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Authorization: `Bearer ${token}`,
    'X-Service-Timestamp': timestamp,
    'X-Service-Signature': `sha256=${signature(token, timestamp, body)}`,
  };
  const event = eventNameOf(payload);
  if (event !== undefined) headers['X-Service-Event'] = event;
  const deliveryId = options.deliveryId === undefined ? globalThis.crypto.randomUUID() : options.deliveryId;
  if (deliveryId !== null) headers['X-Service-Delivery-Id'] = deliveryId;
  return { headers, body };
}

/**
 * The hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `token`: what `X-Service-Signature` carries after `sha256=`.
 *
 * @example
 * ```ts
 * const header = `sha256=${signature('test-token', '1767225600', '{"event":"test"}')}`;
 * ```
 */
export function signature(token: string, timestamp: string, body: string | Uint8Array): string {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + bytes.length);
  message.set(prefix);
  message.set(bytes, prefix.length);
  return encodeHex(hmacSha256(encoder.encode(token), message));
}

/**
 * The envelope's `event` name, from an object or from raw JSON text or bytes; undefined when
 * there is none (a body that is not JSON may be signed on purpose, to test the 400 answer).
 */
export function eventNameOf(payload: unknown): string | undefined {
  let envelope = payload;
  if (typeof payload === 'string' || payload instanceof Uint8Array) {
    try {
      envelope = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
    } catch {
      return undefined;
    }
  }
  const event = typeof envelope === 'object' && envelope !== null ? (envelope as { event?: unknown }).event : undefined;
  return typeof event === 'string' ? event : undefined;
}
