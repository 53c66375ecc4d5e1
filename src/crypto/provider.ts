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
  /**
   * Optional: starts an HMAC over the ASCII `prefix` whose body is fed chunk by chunk as it
   * arrives, so a streamed delivery is verified as soon as its last byte is in. Providers
   * that cannot hash incrementally (Web Crypto) leave it out, and the body is hashed whole.
   *
   * @example
   * ```ts
   * const hmac = verifier.stream?.('1767225600.');
   * for await (const chunk of request) hmac?.update(chunk);
   * const valid = hmac?.matches(expected);
   * ```
   */
  stream?(prefix: string): HmacStream;
}

/**
 * One HMAC in progress, from {@link HmacVerifier.stream}: single use, like the body it hashes.
 *
 * @example
 * ```ts
 * const hmac = verifier.stream!('1767225600.');
 * hmac.update(firstChunk);
 * hmac.update(lastChunk);
 * if (!hmac.matches(expected)) throw new Error('bad signature');
 * ```
 */
export interface HmacStream {
  /** Adds the next bytes of the body. Not after {@link HmacStream.matches}. */
  update(chunk: Uint8Array): void;
  /**
   * Finishes the HMAC and compares it with `expected` (32 bytes) in constant time. Call it
   * once: the HMAC cannot be fed or finished again afterwards.
   */
  matches(expected: Uint8Array): boolean;
}
