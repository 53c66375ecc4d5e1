import { equalBytes, utf8Bytes } from './bytes.js';
import { hmacSha256 } from '../sender/hmac-sha256.js';

/** Which key, if any, made one of the digests over a message. */
export type KeyFinder<K> = (message: Uint8Array) => Promise<K | undefined>;

/**
 * Finds the key behind a signature. A diagnosis may try forty candidate bodies per key, so it
 * uses Web Crypto where the runtime has it (the plain-JS HMAC is some twenty times slower
 * on a large article) and the plain-JS HMAC elsewhere. The MACs never leave this function.
 */
export async function keyFinder<K>(
  keys: readonly (readonly [K, string])[],
  digests: Uint8Array[],
): Promise<KeyFinder<K>> {
  const matches = (mac: Uint8Array) => digests.some((digest) => equalBytes(mac, digest));
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    const algorithm = { name: 'HMAC', hash: 'SHA-256' };
    const imported = await Promise.all(
      keys.map(
        async ([name, key]) =>
          [
            name,
            await subtle.importKey('raw', utf8Bytes(key) as Uint8Array<ArrayBuffer>, algorithm, false, ['sign']),
          ] as const,
      ),
    );
    return async (message) => {
      for (const [name, key] of imported) {
        const mac = new Uint8Array(await subtle.sign('HMAC', key, message as Uint8Array<ArrayBuffer>));
        if (matches(mac)) return name;
      }
      return undefined;
    };
  }
  const raw = keys.map(([name, key]) => [name, utf8Bytes(key)] as const);
  return async (message) => raw.find(([, key]) => matches(hmacSha256(key, message)))?.[0];
}
