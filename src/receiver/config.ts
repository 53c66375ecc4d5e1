import { defaultCryptoProvider } from '../crypto/default-provider.js';
import type { WebhookError } from '../errors/webhook-error.js';
import { describeValue } from '../internal/describe.js';
import { positiveOption } from '../internal/positive.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TOLERANCE_SECONDS, type ReceiverOptions } from './options.js';
import { tenantKeeper } from './tenants/tenant-loader.js';
import { DEFAULT_TENANT_LOOKUPS_PER_SECOND } from './tenants/tenant.js';
import { deferredMatcher } from './tokens/deferred-matcher.js';
import { FixedTokens } from './tokens/fixed-tokens.js';
import type { TokenKeeperOptions } from './tokens/token-keeper.js';
import type { TokenMatcher } from './tokens/token-matcher.js';
import { DEFAULT_TOKEN_READ_TIMEOUT_MS } from './tokens/read-timeout.js';
import { DEFAULT_TOKEN_CACHE_MS, readDeadlineOption, readTokenList } from './tokens/token-source.js';

/** The longest `toleranceSeconds` taken without `allowLongTolerance`: an hour. */
export const MAX_TOLERANCE_SECONDS = 3600;

/** What verification needs, resolved from the options once per receiver. */
export interface VerifyConfig {
  /** The tokens (fixed, from a source, or per tenant) and the rotation window. */
  keeper: TokenMatcher;
  toleranceSeconds: number;
  maxBodyBytes: number;
  now: () => number;
}

/**
 * Checks the options once, at start-up, with errors that name the fix. `onReadFailed` hears
 * of a token source's failed reads (at most once a minute).
 */
export function resolveConfig(
  options: ReceiverOptions,
  onReadFailed: (error: WebhookError) => void = () => {},
): VerifyConfig {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createReceiver needs an options object: createReceiver({ token: process.env.WEBHOOK_TOKEN })');
  }
  const now = options.now ?? Date.now;
  checkStore(options);
  // Read once here, so a window in the past or in seconds throws in every mode.
  const deadline = readDeadlineOption(options.rotatingUntil, now);
  const common = {
    rotatingUntil: options.rotatingUntil,
    cacheMs: positiveOption(options.tokenCacheMs, DEFAULT_TOKEN_CACHE_MS, 'createReceiver: tokenCacheMs'),
    readTimeoutMs: positiveOption(
      options.tokenReadTimeoutMs,
      DEFAULT_TOKEN_READ_TIMEOUT_MS,
      'createReceiver: tokenReadTimeoutMs',
    ),
    crypto: options.crypto ?? defaultCryptoProvider(),
    now,
    onReadFailed,
  };
  const keeper: TokenMatcher =
    options.tenants === undefined
      ? tokenMatcher({ ...common, token: options.token, deadline })
      : tenantKeeper({ ...common, ...tenantOptions(options) });
  return {
    keeper,
    toleranceSeconds: readTolerance(options),
    maxBodyBytes: positiveOption(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'createReceiver: maxBodyBytes'),
    now,
  };
}

/**
 * Check 2's tokens: a fixed string or list matches synchronously; a token source or a rotation
 * window needs the `TokenKeeper`, whose code then loads on first use. The token is read here
 * first, so a bad one throws from createReceiver either way; `deadline` is the option, checked.
 */
function tokenMatcher({ deadline, ...options }: TokenKeeperOptions & { deadline: number | undefined }): TokenMatcher {
  if (typeof options.token !== 'function') {
    const { tokens } = readTokenList(options.token, options.now, 'createReceiver: token');
    if (deadline === undefined) return new FixedTokens(tokens, options.crypto);
  }
  return deferredMatcher({
    load: () => import('./tokens/token-keeper.js').then((loaded) => new loaded.TokenKeeper(options)),
    deadline,
    now: options.now,
  });
}

/** The tenant-mode options, checked: `tenants` is a function and replaces `token`. */
function tenantOptions(options: ReceiverOptions) {
  if (typeof options.tenants !== 'function') {
    throw new TypeError(
      'createReceiver: tenants must be a function called with the SHA-256 hex of the presented token, ' +
        'returning { id, token, profileId?, domain? } or undefined.',
    );
  }
  if (options.token !== undefined) {
    throw new TypeError(
      "createReceiver: pass either token or tenants, not both. With tenants, each site's token comes from " +
        "what tenants returns for its hash; a token list would accept any site's token for every site.",
    );
  }
  return {
    tenants: options.tenants,
    lookupsPerSecond: readLookupsPerSecond(options.tenantLookupsPerSecond),
  };
}

/** At least one lookup a second: below that, no unknown site would ever be looked up. */
function readLookupsPerSecond(value: number | undefined): number {
  const label = 'createReceiver: tenantLookupsPerSecond';
  const perSecond = positiveOption(value, DEFAULT_TENANT_LOOKUPS_PER_SECOND, label);
  if (perSecond < 1) {
    throw new RangeError(
      `${label} must be at least 1 (lookups of new token hashes per second), got ${perSecond}; ` +
        `below 1 no new site is ever looked up and every delivery is answered 503. The default is ${DEFAULT_TENANT_LOOKUPS_PER_SECOND}.`,
    );
  }
  return perSecond;
}

/**
 * `toleranceSeconds`, at most an hour unless `allowLongTolerance`: a value in milliseconds by
 * mistake (300000) would accept replays for days.
 */
function readTolerance(options: ReceiverOptions): number {
  const label = 'createReceiver: toleranceSeconds';
  const seconds = positiveOption(options.toleranceSeconds, DEFAULT_TOLERANCE_SECONDS, label);
  if (seconds > MAX_TOLERANCE_SECONDS && options.allowLongTolerance !== true) {
    throw new RangeError(
      `${label} is ${seconds} seconds (${(seconds / 3600).toFixed(1)} h): a replayed delivery would be accepted that long. ` +
        `It is in seconds, not milliseconds (the default is ${DEFAULT_TOLERANCE_SECONDS}); ` +
        'if you mean it, pass allowLongTolerance: true as well.',
    );
  }
  return seconds;
}

/** `dedup` is a store or false, and `ordering` has a store to keep its marks in. */
function checkStore(options: ReceiverOptions): void {
  const { dedup } = options;
  if (dedup !== undefined && dedup !== false && typeof (dedup as { claim?: unknown } | null)?.claim !== 'function') {
    throw new TypeError(
      `createReceiver: dedup must be a dedup store (memoryDedupStore(), redisDedupStore(client), ` +
        `postgresDedupStore(pool), …) or false to turn dedup off; got ${describeValue(dedup)}` +
        `${typeof dedup === 'object' && dedup !== null ? ' without a claim method' : ''}. Leave it out for the default memory store.`,
    );
  }
  if (options.ordering === true && dedup === false) {
    throw new TypeError(
      'createReceiver: ordering: true keeps its marks in the dedup store, and dedup: false turns the store off, ' +
        'so nothing would be ordered. Drop dedup: false (the default memoryDedupStore() orders within one process) ' +
        'or pass a shared store.',
    );
  }
}
