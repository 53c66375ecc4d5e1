import { defaultCryptoProvider } from '../crypto/default-provider.js';
import type { WebhookError } from '../errors/webhook-error.js';
import { positiveOption } from '../internal/positive.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TOLERANCE_SECONDS, type ReceiverOptions } from './options.js';
import { TokenKeeper } from './token-keeper.js';
import { DEFAULT_TOKEN_CACHE_MS } from './token-source.js';

/** What verification needs, resolved from the options once per receiver. */
export interface VerifyConfig {
  /** The tokens (fixed or from a source) and the rotation window. */
  keeper: TokenKeeper;
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
  const keeper = new TokenKeeper({
    token: options.token,
    rotatingUntil: options.rotatingUntil,
    cacheMs: positiveOption(options.tokenCacheMs, DEFAULT_TOKEN_CACHE_MS, 'createReceiver: tokenCacheMs'),
    crypto: options.crypto ?? defaultCryptoProvider(),
    now,
    onReadFailed,
  });
  return {
    keeper,
    toleranceSeconds: positiveOption(
      options.toleranceSeconds,
      DEFAULT_TOLERANCE_SECONDS,
      'createReceiver: toleranceSeconds',
    ),
    maxBodyBytes: positiveOption(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'createReceiver: maxBodyBytes'),
    now,
  };
}
