import { constantTimeEqual, constantTimeEqualAscii } from '../crypto/constant-time.js';
import type { HmacVerifier } from '../crypto/provider.js';
import { WebhookError } from '../errors/webhook-error.js';

/** One configured token, prepared once. */
export interface TokenKey {
  bytes: Uint8Array;
  hmac: HmacVerifier;
}

const encoder = new TextEncoder();

/**
 * Check 2. Compares against every token, without stopping at the first match, so timing
 * tells nothing; returns the index of the one that matched.
 */
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
  if (index < 0) {
    throw new WebhookError(
      'invalid_token',
      'the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
    );
  }
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
