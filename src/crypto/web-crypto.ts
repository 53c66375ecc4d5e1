import type { CryptoProvider, HmacVerifier } from './provider.js';

const encoder = new TextEncoder();

/**
 * HMAC through Web Crypto (`crypto.subtle`), available on every runtime this library supports.
 * The key is imported once per token; `subtle.verify` compares in constant time itself.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, crypto: webCryptoProvider() });
 * ```
 */
export function webCryptoProvider(): CryptoProvider {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available on this runtime.');
  return {
    name: 'webcrypto',
    hmacSha256(secret: string): HmacVerifier {
      let key: Promise<CryptoKey> | undefined;
      return {
        async verify(prefix, body, expected) {
          key ??= subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
          return subtle.verify('HMAC', await key, expected as Uint8Array<ArrayBuffer>, joinPrefix(prefix, body));
        },
      };
    },
  };
}

/** subtle has no streaming API, so the prefix and body go into one buffer: the one copy this path makes. */
function joinPrefix(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const message = new Uint8Array(prefix.length + body.length);
  for (let i = 0; i < prefix.length; i++) message[i] = prefix.charCodeAt(i);
  message.set(body, prefix.length);
  return message;
}
