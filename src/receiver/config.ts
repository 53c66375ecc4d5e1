import { defaultCryptoProvider } from '../crypto/default-provider.js';
import { positiveOption } from '../internal/positive.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TOLERANCE_SECONDS, type ReceiverOptions } from './options.js';
import type { TokenKey } from './token.js';

/** What verification needs, resolved from the options once per receiver. */
export interface VerifyConfig {
  tokens: readonly TokenKey[];
  toleranceSeconds: number;
  maxBodyBytes: number;
  now: () => number;
}

const encoder = new TextEncoder();

/** Checks the options once, at start-up, with errors that name the fix. */
export function resolveConfig(options: ReceiverOptions): VerifyConfig {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createReceiver needs an options object: createReceiver({ token: process.env.WEBHOOK_TOKEN })');
  }
  const tokens = typeof options.token === 'string' ? [options.token] : options.token;
  if (
    !Array.isArray(tokens) ||
    tokens.length === 0 ||
    tokens.some((token) => typeof token !== 'string' || token.length === 0)
  ) {
    throw new TypeError(
      'createReceiver: token must be a non-empty string (or a non-empty array of them). Is WEBHOOK_TOKEN set? ' +
        'The token is shown once in Profile Settings → CMS Integration.',
    );
  }
  const crypto = options.crypto ?? defaultCryptoProvider();
  return {
    tokens: tokens.map((token: string) => ({ bytes: encoder.encode(token), hmac: crypto.hmacSha256(token) })),
    toleranceSeconds: positiveOption(
      options.toleranceSeconds,
      DEFAULT_TOLERANCE_SECONDS,
      'createReceiver: toleranceSeconds',
    ),
    maxBodyBytes: positiveOption(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'createReceiver: maxBodyBytes'),
    now: options.now ?? Date.now,
  };
}
