/**
 * The one cryptographic operation the receiver needs, behind an interface small enough to
 * implement on any runtime. Two implementations ship: `nodeCryptoProvider()` (node:crypto,
 * several times faster on Node, Bun and Deno) and `webCryptoProvider()` (Web Crypto, for
 * Workers without `nodejs_compat` and browsers).
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, crypto: webCryptoProvider() });
 * ```
 */
export interface CryptoProvider {
  /** Shown in diagnostics and benchmarks, e.g. `node:crypto`. */
  readonly name: string;
  /** Prepares a verifier for one secret. Called once per configured token, never per delivery. */
  hmacSha256(secret: string): HmacVerifier;
}

/** HMAC-SHA256 bound to one secret. */
export interface HmacVerifier {
  /**
   * True when HMAC-SHA256 over the ASCII `prefix` followed by `body` equals `expected`
   * (32 bytes), compared in constant time. Synchronous where the runtime allows, so the
   * common path allocates no promise.
   */
  verify(prefix: string, body: Uint8Array, expected: Uint8Array): boolean | Promise<boolean>;
}
