import { decodeSha256Hex, type HexComparing, NOT_HEX } from '../crypto/hex.js';
import { WebhookError } from '../errors/webhook-error.js';
import { parseEvent } from '../events/parse-event.js';
import type { WebhookEvent } from '../events/types.js';
import { type BodyInput, bodyBytes, notRawBody } from '../input/body.js';
import {
  digitsValue,
  type DeliveryHeaderName,
  deliveryHeader,
  type HeaderLookup,
  type HeadersInput,
  headerLookup,
  lowerCaseRecord,
} from '../input/headers.js';
import { decodeUtf8 } from '../input/utf8.js';
import { isThenable, type MaybePromise } from '../internal/maybe.js';
import type { VerifyConfig } from './config.js';
import type { MatchedToken } from './tokens/token-matcher.js';

/** A delivery as received: headers and the raw body. */
export interface DeliveryInput {
  headers: HeadersInput;
  body: BodyInput;
}

/** What an adapter already checked before the body arrived, so it is not checked twice. */
export interface Admitted {
  headers: HeaderLookup;
  /** The token check 2 matched; undefined when the head could not settle it (a source to read, a request to keep). */
  matched: MatchedToken | undefined;
  /** The HMAC the adapter fed while the body streamed in, if it did. */
  streamed?: StreamedDigest;
}

/** An HMAC computed while the body streamed in, and what it was computed over. */
export interface StreamedDigest {
  /** The X-Service-Timestamp text its prefix was made from. */
  readonly timestamp: string;
  /** How many body bytes it was fed. */
  readonly length: number;
  /** Finishes it and compares in constant time; once. */
  matches(expected: Uint8Array): boolean;
}

const SIGNATURE_PREFIX = 'sha256=';

/**
 * Runs the contract's checks 1 to 7 in order. Returns synchronously when the HMAC is
 * synchronous, so the common path on Node allocates no promise.
 */
export function verifyDelivery(
  config: VerifyConfig,
  input: DeliveryInput,
  admitted?: Admitted,
): MaybePromise<WebhookEvent> {
  const { headers: rawHeaders, body } = (
    typeof input === 'object' && input !== null ? input : {}
  ) as Partial<DeliveryInput>;
  const bytes = bodyBytes(body, config.maxBodyBytes);
  // Node's lower-case header object is read as it is; any other shape through a lookup.
  const record = admitted === undefined ? lowerCaseRecord(rawHeaders) : undefined;
  const lookup = admitted?.headers ?? (record === undefined ? headerLookup(rawHeaders) : undefined);
  const matched = admitted?.matched ?? config.keeper.match(header(record, lookup, 'authorization'));
  if (isThenable(matched)) {
    return matched.then((token) => checkSigned(config, token, bytes, body, record, lookup, admitted));
  }
  return checkSigned(config, matched, bytes, body, record, lookup, admitted);
}

/** Checks 3 to 7, once check 2 matched a token. */
function checkSigned(
  config: VerifyConfig,
  token: MatchedToken,
  bytes: Uint8Array | undefined,
  body: unknown,
  record: Readonly<Record<string, unknown>> | undefined,
  lookup: HeaderLookup | undefined,
  admitted: Admitted | undefined,
): MaybePromise<WebhookEvent> {
  if (bytes === undefined) throw notRawBody(body);
  const timestamp = header(record, lookup, 'x-service-timestamp');
  checkTimestamp(timestamp, config);
  const signature = header(record, lookup, 'x-service-signature');
  if (!signature?.startsWith(SIGNATURE_PREFIX)) throw signatureFormat(signature);
  let streamed = admitted?.streamed;
  // The streamed HMAC stands in for hashing again only when it covered this very message.
  if (streamed !== undefined && (streamed.timestamp !== timestamp || streamed.length !== bytes.byteLength))
    streamed = undefined;
  // Where the provider can, the hex text is compared as it is, in the same constant-time loop
  // that checks its digits: no decode, no second pass.
  const compared = streamed
    ? undefined
    : (token.key.hmac as HexComparing).verifyHex?.(`${timestamp}.`, bytes, signature, SIGNATURE_PREFIX.length);
  if (compared === NOT_HEX) throw signatureFormat(signature);
  const valid =
    compared !== undefined
      ? compared === 0
      : streamed
        ? streamed.matches(parseSignature(signature))
        : token.key.hmac.verify(`${timestamp}.`, bytes, parseSignature(signature));
  if (typeof valid === 'boolean') return finish(valid, record, lookup, bytes, token);
  return valid.then((ok) => finish(ok, record, lookup, bytes, token));
}

/** One header, from whichever of the two `verifyDelivery` has: a plain call, no closure per delivery. */
function header(
  record: Readonly<Record<string, unknown>> | undefined,
  lookup: HeaderLookup | undefined,
  name: DeliveryHeaderName,
): string | undefined {
  return record !== undefined ? deliveryHeader(record, name) : lookup!(name);
}

/** Check 5's verdict, then checks 6 and 7. Plain arguments: no object is made to carry them. */
function finish(
  valid: boolean,
  record: Readonly<Record<string, unknown>> | undefined,
  lookup: HeaderLookup | undefined,
  bytes: Uint8Array,
  token: MatchedToken,
): WebhookEvent {
  if (!valid) {
    throw new WebhookError(
      'invalid_signature',
      'X-Service-Signature does not match: the body was changed before verify (re-serialised, decoded or trimmed), ' +
        'or it was signed with another token.',
    );
  }
  const deliveryId = header(record, lookup, 'x-service-delivery-id') || null;
  const event = parseEvent(parseJson(bytes), { deliveryId, tokenIndex: token.index });
  return token.tenant === undefined ? event : token.tenant.bind(event);
}

/** Checks 3 and 4. */
function checkTimestamp(text: string | undefined, config: VerifyConfig): void {
  const seconds = text === undefined ? undefined : digitsValue(text);
  if (seconds === undefined) {
    throw new WebhookError(
      'invalid_timestamp',
      text === undefined ? 'X-Service-Timestamp is missing' : 'X-Service-Timestamp is not Unix seconds in ASCII digits',
    );
  }
  const skew = Math.floor(config.now() / 1000) - seconds;
  if (!(Math.abs(skew) < config.toleranceSeconds)) {
    const direction = skew > 0 ? 'old' : 'in the future';
    throw new WebhookError(
      'request_expired',
      `X-Service-Timestamp is ${Math.abs(skew)} s ${direction}; tolerance is ${config.toleranceSeconds} s ` +
        "(check this server's clock if this repeats)",
    );
  }
}

/** Check 5's format half, for verifiers that compare bytes: the comparison itself is the provider's. */
function parseSignature(text: string): Uint8Array {
  const bytes = decodeSha256Hex(text, SIGNATURE_PREFIX.length);
  if (!bytes) throw signatureFormat(text);
  return bytes;
}

function signatureFormat(text: string | undefined): WebhookError {
  return new WebhookError(
    'invalid_signature',
    text === undefined
      ? 'X-Service-Signature is missing'
      : 'X-Service-Signature is not "sha256=" followed by 64 hex digits',
  );
}

/**
 * Check 6's syntax half: strict UTF-8, then JSON. A byte-order mark is refused, as JSON.parse
 * refuses it.
 */
function parseJson(bytes: Uint8Array): unknown {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new WebhookError('invalid_payload', 'the body is not valid UTF-8');
  try {
    return JSON.parse(text);
  } catch {
    throw new WebhookError('invalid_payload', 'the body is not valid JSON');
  }
}

/**
 * The input of a request processed after it was kept during a rotation window: queue mode
 * enqueues it with the time it first arrived, as for any delivery, not the time it was let out.
 */
export interface KeptInput extends DeliveryInput {
  receivedAt: number;
}
