import { constantTimeEqual } from './constant-time.js';
import type { CryptoProvider, HmacVerifier } from './provider.js';

const encoder = new TextEncoder();

/**
 * HMAC through Web Crypto (`crypto.subtle`), available on every runtime this library supports.
 * The key is imported once per token. The HMAC is computed with `subtle.sign` and compared by
 * this library's own constant-time loop, never by `subtle.verify`: Node's `subtle.verify`
 * compared HMACs with an early exit before 20.20.2, 22.22.2 and 24.14.1 (CVE-2026-21713), and
 * no runtime documents how its own compares.
 *
 * `hmacSha256` also takes raw key bytes (a `Uint8Array`) where a receiver passes its token,
 * for keys that are not UTF-8 text, such as the Wycheproof test vectors'.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, crypto: webCryptoProvider() });
 * ```
 */
export function webCryptoProvider(): CryptoProvider & { hmacSha256(secret: string | Uint8Array): HmacVerifier } {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available on this runtime.');
  return {
    name: 'webcrypto',
    hmacSha256(secret: string | Uint8Array): HmacVerifier {
      // Copied now: the caller may reuse or wipe its array before the first delivery imports it.
      const keyBytes = typeof secret === 'string' ? encoder.encode(secret) : secret.slice();
      let key: Promise<CryptoKey> | undefined;
      const importKey = () => {
        const imported = subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
        // importKey copies the bytes before it returns, so from here the key lives only in the CryptoKey.
        keyBytes.fill(0);
        return imported;
      };
      return {
        async verify(prefix, body, expected) {
          key ??= importKey();
          const digest = await subtle.sign('HMAC', await key, joinPrefix(prefix, body));
          return constantTimeEqual(new Uint8Array(digest), expected);
        },
      };
    },
  };
}

/** subtle has no streaming API, so the prefix and body go into one buffer: the one copy this path makes. */
function joinPrefix(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const message = new Uint8Array(prefix.length + body.length);
  message.set(body, prefix.length);
  for (let i = 0; i < prefix.length; i++) message[i] = prefix.charCodeAt(i);
  return message;
}
