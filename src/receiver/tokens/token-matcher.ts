import type { CryptoProvider } from '../../crypto/provider.js';
import type { WebhookError } from '../../errors/webhook-error.js';
import type { MaybePromise } from '../../internal/maybe.js';
import type { TenantBinding } from './matched-tenant.js';
import type { TokenKey } from './token.js';

/** The token that matched a request's Bearer token, where it stands in its list, and its tenant. */
export interface MatchedToken {
  index: number;
  key: TokenKey;
  /** Tenant mode only: the tenant the token belongs to. */
  tenant?: TenantBinding;
}

/**
 * Check 2, wherever tokens come from: a fixed list or a token source (`TokenKeeper`), or a
 * tenant resolver (`TenantKeeper`). Verification, admission and kept requests use only this.
 */
export interface TokenMatcher {
  /** Check 2: the match, or throws/rejects with the refusal. */
  match(authorization: string | undefined): MaybePromise<MatchedToken>;
  /**
   * Check 2 for a request's head, which cannot wait: the match, a refusal thrown, or undefined
   * when only a read (or the body, for a request to keep) can settle it.
   */
  matchNow(authorization: string | undefined): MatchedToken | undefined;
  /** The token whose SHA-256 hex is this, for a kept request; undefined when none is known now. */
  matchKept(tokenSha256: string): Promise<MatchedToken | undefined>;
  /** The end of the rotation window in epoch ms while it is armed; undefined otherwise. */
  rotatingUntil(): number | undefined;
  /** Reads the tokens again where they come from a source; never rejects. */
  refresh(): Promise<void>;
  /** Calls `listener` when a read may have made kept requests verifiable. */
  onChange(listener: () => void): void;
}

/** What every {@link TokenMatcher} is made from, once per receiver, besides where its tokens come from. */
export interface MatcherOptions {
  rotatingUntil?: unknown;
  /** How long an answer of the source (or the resolver) is kept. */
  cacheMs: number;
  crypto: CryptoProvider;
  now: () => number;
  /** A failed read of the source (or the resolver), at most once a minute. */
  onReadFailed: (error: WebhookError) => void;
  /** How long a read of the source (or a lookup of the resolver) may take before it fails; default 5 s. */
  readTimeoutMs?: number;
}
