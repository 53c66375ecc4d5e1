import type { CryptoProvider } from '../../crypto/provider.js';
import { matchToken, type TokenKey } from './token.js';
import type { MatchedToken, TokenMatcher } from './token-matcher.js';

const encoder = new TextEncoder();

/** Verifiers for a token list, reusing those of tokens already known so a re-read costs no key setup. */
export function prepareKeys(
  tokens: readonly string[],
  crypto: CryptoProvider,
  known?: readonly TokenKey[],
): readonly TokenKey[] {
  const byToken = new Map(known?.map((key) => [key.token, key]));
  return tokens.map(
    (token) => byToken.get(token) ?? { token, bytes: encoder.encode(token), hmac: crypto.hmacSha256(token) },
  );
}

/** One match object per token of a list, made with the list: a delivery allocates none. */
export function matchesOf(keys: readonly TokenKey[]): readonly MatchedToken[] {
  return keys.map((key, index) => ({ index, key }));
}

/** The match whose token's SHA-256 hex is `tokenSha256`, for a kept request; undefined for none. */
export async function matchKeptIn(
  matches: readonly MatchedToken[],
  tokenSha256: string,
): Promise<MatchedToken | undefined> {
  // Loaded with the kept requests that need it: an endpoint with a fixed token never does.
  const { keyTokenSha256Hex } = await import('../../crypto/token-sha256.js');
  for (const match of matches) if ((await keyTokenSha256Hex(match.key)) === tokenSha256) return match;
  return undefined;
}

/**
 * Check 2 for the common case, `token` as a string or a list with no rotation window: matched
 * in constant time over every token, always synchronously. A token source or a rotation
 * window needs the `TokenKeeper`, which loads only then.
 */
export class FixedTokens implements TokenMatcher {
  private readonly matches: readonly MatchedToken[];
  private readonly keys: readonly TokenKey[];

  constructor(tokens: readonly string[], crypto: CryptoProvider) {
    this.keys = prepareKeys(tokens, crypto);
    this.matches = matchesOf(this.keys);
  }

  match(authorization: string | undefined): MatchedToken {
    return this.matchNow(authorization);
  }

  matchNow(authorization: string | undefined): MatchedToken {
    return this.matches[matchToken(this.keys, authorization)]!;
  }

  matchKept(tokenSha256: string): Promise<MatchedToken | undefined> {
    return matchKeptIn(this.matches, tokenSha256);
  }

  rotatingUntil(): undefined {
    return undefined;
  }

  refresh(): Promise<void> {
    return Promise.resolve();
  }

  onChange(): void {}
}
