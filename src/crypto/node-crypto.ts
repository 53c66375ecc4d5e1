import { loadBuiltin } from '../internal/builtin.js';
import type { CryptoProvider, HmacStream, HmacVerifier } from './provider.js';

/** An HMAC in progress, as node:crypto's `Hmac` object is. */
interface NodeHmac {
  update(data: string | Uint8Array, encoding?: 'latin1'): NodeHmac;
  digest(): Uint8Array;
}

/** The slice of node:crypto this provider uses; declared here so the core needs no Node types. */
interface NodeCrypto {
  createSecretKey?(key: Uint8Array): object;
  createHmac(algorithm: 'sha256', key: object | string): NodeHmac;
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}

/** node:crypto where the runtime has it. */
export function loadNodeCrypto(): NodeCrypto | undefined {
  return loadBuiltin<NodeCrypto>('node:crypto');
}

/**
 * HMAC through node:crypto: on Node about 4x faster than Web Crypto for a 1 KiB body,
 * synchronous, and able to hash a body while it streams in.
 * Available on Node 20.16+, Bun, Deno and Workers with `nodejs_compat`.
 *
 * @throws Error when node:crypto cannot be loaded here; use `webCryptoProvider()` instead.
 * @example
 * ```ts
 * const receiver = createReceiver({ token, crypto: nodeCryptoProvider() });
 * ```
 */
export function nodeCryptoProvider(): CryptoProvider {
  const crypto = loadNodeCrypto();
  if (!crypto) {
    throw new Error(
      'node:crypto is not available on this runtime (it needs Node 20.16+, Bun, Deno, or a Worker with nodejs_compat); use webCryptoProvider() instead.',
    );
  }
  return {
    name: 'node:crypto',
    hmacSha256(secret: string): HmacVerifier {
      // A KeyObject holds the key in native memory once, so no delivery converts the string
      // again; the string itself still works on runtimes whose node:crypto lacks KeyObject.
      const key = crypto.createSecretKey ? crypto.createSecretKey(new TextEncoder().encode(secret)) : secret;
      return {
        verify(prefix, body, expected) {
          // latin1 writes the ASCII prefix byte for byte, skipping UTF-8 encoding work.
          const digest = crypto.createHmac('sha256', key).update(prefix, 'latin1').update(body).digest();
          return equalDigests(crypto, digest, expected);
        },
        stream(prefix) {
          return new NodeHmacStream(crypto, crypto.createHmac('sha256', key).update(prefix, 'latin1'));
        },
      };
    },
  };
}

/** A streamed HMAC; a class so that each delivery costs one small object, its methods shared. */
class NodeHmacStream implements HmacStream {
  constructor(
    private readonly crypto: NodeCrypto,
    private readonly hmac: NodeHmac,
  ) {}

  update(chunk: Uint8Array): void {
    this.hmac.update(chunk);
  }

  matches(expected: Uint8Array): boolean {
    return equalDigests(this.crypto, this.hmac.digest(), expected);
  }
}

/** timingSafeEqual throws on a length mismatch; a wrong length is simply not a match. */
function equalDigests(crypto: NodeCrypto, digest: Uint8Array, expected: Uint8Array): boolean {
  return digest.byteLength === expected.byteLength && crypto.timingSafeEqual(digest, expected);
}
