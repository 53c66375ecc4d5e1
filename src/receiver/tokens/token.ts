import { constantTimeEqual, constantTimeEqualAscii } from '../../crypto/constant-time.js';
import type { HmacVerifier } from '../../crypto/provider.js';
import { WebhookError } from '../../errors/webhook-error.js';

/** One configured token, prepared once. */
export interface TokenKey {
  /** The token itself: never logged, answered or stored. */
  token: string;
  bytes: Uint8Array;
  hmac: HmacVerifier;
}

const encoder = new TextEncoder();

/**
 * Check 2. Compares against every token, without stopping at the first match, so timing
 * tells nothing; returns the index of the one that matched.
 */
export function matchToken(tokens: readonly TokenKey[], authorization: string | undefined): number {
  const start = bearerStart(authorization);
  const index = findToken(tokens, authorization!, start);
  if (index < 0) throw unknownToken();
  return index;
}

/**
 * Where the token starts in a `Bearer <token>` header (scheme in any case); throws check 2's
 * refusal for a missing or malformed header, which no token source or rotation changes.
 */
export function bearerStart(authorization: string | undefined): number {
  const space = authorization === undefined ? -1 : authorization.indexOf(' ');
  if (!authorization || !isBearer(authorization, space)) {
    throw new WebhookError(
      'invalid_token',
      authorization ? 'Authorization is not "Bearer <token>"' : 'Authorization header is missing',
    );
  }
  let start = space + 1;
  while (authorization.charCodeAt(start) === 0x20) start++;
  return start;
}

/** The index of the token that equals the header's, in constant time over every token; -1 for none. */
export function findToken(tokens: readonly TokenKey[], authorization: string, start: number): number {
  let encoded: Uint8Array | undefined;
  let index = -1;
  for (let i = 0; i < tokens.length; i++) {
    const bytes = tokens[i]!.bytes;
    const equal =
      constantTimeEqualAscii(authorization, start, bytes) ??
      constantTimeEqual((encoded ??= encoder.encode(authorization.slice(start))), bytes);
    index = equal && index < 0 ? i : index;
  }
  return index;
}

/** The reason of check 2's refusal, by where tokens come from: the log line a user reads first. */
const UNKNOWN_TOKEN_REASONS = {
  tokens:
    'the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
  tenants:
    "the Bearer token belongs to no site: tenants returned no site for its SHA-256, or the site's token differs; " +
    "was it regenerated in that site's Profile Settings → CMS Integration, and is the new one in your sites table?",
};

/** Check 2's refusal for a well-formed Bearer token that matches none (in tenant mode: no site's). */
export function unknownToken(mode: keyof typeof UNKNOWN_TOKEN_REASONS = 'tokens'): WebhookError {
  return new WebhookError('invalid_token', UNKNOWN_TOKEN_REASONS[mode]);
}

/**
 * True when the presented token could be one the service issued: 1 to 512 printable ASCII
 * characters. Only such tokens are answered 503 during a rotation window; anything else
 * stays a 401, so the window widens nothing for garbage.
 */
export function plausibleToken(authorization: string, start: number): boolean {
  const length = authorization.length - start;
  if (length < 1 || length > 512) return false;
  for (let i = start; i < authorization.length; i++) {
    const code = authorization.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** True when the text before the first space is `bearer` in any case, compared without a copy. */
function isBearer(authorization: string, space: number): boolean {
  if (space !== 6) return false;
  let difference = 0;
  // OR-ing 0x20 lower-cases an ASCII letter and maps no other character onto one.
  for (let i = 0; i < 6; i++) difference |= (authorization.charCodeAt(i) | 0x20) ^ 'bearer'.charCodeAt(i);
  return difference === 0;
}
