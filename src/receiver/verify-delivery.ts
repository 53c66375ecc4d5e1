import { decodeSha256Hex } from '../crypto/hex.js';
import { constantTimeEqual, constantTimeEqualAscii } from '../crypto/constant-time.js';
import type { HmacVerifier } from '../crypto/provider.js';
import { WebhookError } from '../errors/webhook-error.js';
import { parseEvent } from '../events/parse-event.js';
import type { WebhookEvent } from '../events/types.js';
import { bodyBytes, notRawBody, type BodyInput } from '../http/body.js';
import { decodeUtf8 } from '../http/utf8.js';
import { headerLookup, type HeaderLookup, type HeadersInput } from '../http/headers.js';

/** A delivery as received: headers and the raw body. */
export interface DeliveryInput {
  headers: HeadersInput;
  body: BodyInput;
}

/** One configured token, prepared once. */
export interface TokenKey {
  bytes: Uint8Array;
  hmac: HmacVerifier;
}

/** What verification needs, resolved from the options once per receiver. */
export interface VerifyConfig {
  tokens: readonly TokenKey[];
  toleranceSeconds: number;
  maxBodyBytes: number;
  now: () => number;
}

/** A delivery that passed every check, with what dedup needs to remember it. */
export interface VerifiedDelivery {
  event: WebhookEvent;
  /** The `X-Service-Signature` header that matched: `sha256=` and 64 hex digits of either case. */
  signatureHeader: string;
  /** Milliseconds until the signature's timestamp leaves the tolerance window. */
  signatureTtlMs: number;
}

const encoder = new TextEncoder();
const DIGITS = /^[0-9]+$/;
const SIGNATURE_PREFIX = 'sha256=';

/**
 * Runs the contract's checks 1 to 7 in order. Returns synchronously when the HMAC is
 * synchronous, so the common path on Node allocates no promise.
 */
export function verifyDelivery(
  config: VerifyConfig,
  input: DeliveryInput,
): VerifiedDelivery | Promise<VerifiedDelivery> {
  const { headers: rawHeaders, body } = (
    typeof input === 'object' && input !== null ? input : {}
  ) as Partial<DeliveryInput>;
  const bytes = bodyBytes(body, config.maxBodyBytes);
  const headers = headerLookup(rawHeaders);
  const tokenIndex = matchToken(config.tokens, headers('authorization'));
  if (bytes === undefined) throw notRawBody(body);
  const timestamp = headers('x-service-timestamp');
  const nowMs = config.now();
  const ttlMs = checkTimestamp(timestamp, nowMs, config.toleranceSeconds);
  const signatureHeader = headers('x-service-signature');
  const expected = parseSignature(signatureHeader);
  const valid = config.tokens[tokenIndex]!.hmac.verify(`${timestamp}.`, bytes, expected);
  if (typeof valid === 'boolean') return finish(valid, headers, bytes, tokenIndex, signatureHeader!, ttlMs);
  return valid.then((ok) => finish(ok, headers, bytes, tokenIndex, signatureHeader!, ttlMs));
}

/** Check 5's verdict, then checks 6 and 7. */
function finish(
  valid: boolean,
  headers: HeaderLookup,
  bytes: Uint8Array,
  tokenIndex: number,
  signatureHeader: string,
  signatureTtlMs: number,
): VerifiedDelivery {
  if (!valid)
    throw new WebhookError(
      'invalid_signature',
      'X-Service-Signature does not match: the body was changed before verify (re-serialised, decoded or trimmed), or it was signed with another token.',
    );
  const deliveryId = headers('x-service-delivery-id') || null;
  const event = parseEvent(parseJson(bytes), { deliveryId, tokenIndex });
  return { event, signatureHeader, signatureTtlMs };
}

/** The accepted signature as dedup stores key it: lower-case hex, without the `sha256=` prefix. */
export function acceptedSignature(delivery: VerifiedDelivery): string {
  return delivery.signatureHeader.slice(SIGNATURE_PREFIX.length).toLowerCase();
}

/** Check 2. Compares against every token, without stopping at the first match, so timing tells nothing. */
export function matchToken(tokens: readonly TokenKey[], authorization: string | undefined): number {
  const space = authorization === undefined ? -1 : authorization.indexOf(' ');
  if (!authorization || !isBearer(authorization, space)) {
    throw new WebhookError(
      'invalid_token',
      authorization ? 'Authorization is not "Bearer <token>"' : 'Authorization header is missing',
    );
  }
  let start = space + 1;
  while (authorization.charCodeAt(start) === 0x20) start++;
  let encoded: Uint8Array | undefined;
  let index = -1;
  for (let i = 0; i < tokens.length; i++) {
    const bytes = tokens[i]!.bytes;
    const equal =
      constantTimeEqualAscii(authorization, start, bytes) ??
      constantTimeEqual((encoded ??= encoder.encode(authorization.slice(start))), bytes);
    index = equal && index < 0 ? i : index;
  }
  if (index < 0)
    throw new WebhookError(
      'invalid_token',
      'the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
    );
  return index;
}

/** True when the text before the first space is `bearer` in any case, compared without a copy. */
function isBearer(authorization: string, space: number): boolean {
  if (space !== 6) return false;
  let difference = 0;
  // OR-ing 0x20 lower-cases an ASCII letter and maps no other character onto one.
  for (let i = 0; i < 6; i++) difference |= (authorization.charCodeAt(i) | 0x20) ^ 'bearer'.charCodeAt(i);
  return difference === 0;
}

/** Checks 3 and 4; returns how long the signature stays inside the window. */
function checkTimestamp(text: string | undefined, nowMs: number, toleranceSeconds: number): number {
  if (text === undefined || !DIGITS.test(text)) {
    throw new WebhookError(
      'invalid_timestamp',
      text === undefined ? 'X-Service-Timestamp is missing' : 'X-Service-Timestamp is not Unix seconds in ASCII digits',
    );
  }
  const seconds = Number(text);
  const skew = Math.floor(nowMs / 1000) - seconds;
  if (!(Math.abs(skew) < toleranceSeconds)) {
    const direction = skew > 0 ? 'old' : 'in the future';
    throw new WebhookError(
      'request_expired',
      `X-Service-Timestamp is ${Math.abs(skew)} s ${direction}; tolerance is ${toleranceSeconds} s (check this server's clock if this repeats)`,
    );
  }
  return (seconds + toleranceSeconds) * 1000 - nowMs;
}

/** Check 5's format half: the comparison itself is the provider's. */
function parseSignature(text: string | undefined): Uint8Array {
  const bytes = text?.startsWith(SIGNATURE_PREFIX) ? decodeSha256Hex(text, SIGNATURE_PREFIX.length) : undefined;
  if (!bytes) {
    throw new WebhookError(
      'invalid_signature',
      text === undefined
        ? 'X-Service-Signature is missing'
        : 'X-Service-Signature is not "sha256=" followed by 64 hex digits',
    );
  }
  return bytes;
}

/** Check 6's syntax half: strict UTF-8, then JSON. A byte-order mark is refused, as JSON.parse refuses it. */
function parseJson(bytes: Uint8Array): unknown {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new WebhookError('invalid_payload', 'the body is not valid UTF-8');
  try {
    return JSON.parse(text);
  } catch {
    throw new WebhookError('invalid_payload', 'the body is not valid JSON');
  }
}
