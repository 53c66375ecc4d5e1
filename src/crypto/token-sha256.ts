import { loadBuiltin } from '../internal/builtin.js';
import type { MaybePromise } from '../internal/maybe.js';

/** The slice of node:crypto used here; declared so the core needs no Node types. */
interface NodeHashing {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
  /** One-shot hashing (Node 20.12+, Bun, Deno): about half the cost of createHash for a short token. */
  hash?(algorithm: 'sha256', data: string, outputEncoding: 'hex'): string;
}

const encoder = new TextEncoder();
let node: ((token: string) => string) | null | undefined;

/**
 * SHA-256 of a token's UTF-8 bytes as lower-case hex: what tenants are looked up by and what
 * kept requests store instead of the token. Synchronous where node:crypto is (Node, Bun, Deno,
 * Workers with `nodejs_compat`), so a cached tenant costs no promise turn; Web Crypto elsewhere.
 */
export function tokenSha256Hex(token: string): MaybePromise<string> {
  if (node === undefined) node = nodeHashing(loadBuiltin<Partial<NodeHashing>>('node:crypto'));
  if (node) return node(token);
  return webSha256Hex(encoder.encode(token));
}

const keyHashes = new WeakMap<object, MaybePromise<string>>();

/**
 * {@link tokenSha256Hex} of a prepared token, computed once per key object: kept requests are
 * matched against every current token on each pass, by either token matcher.
 */
export function keyTokenSha256Hex(key: { readonly token: string }): MaybePromise<string> {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    hash = tokenSha256Hex(key.token);
    keyHashes.set(key, hash);
  }
  return hash;
}

/** SHA-256 through Web Crypto, lower-case hex. */
export async function webSha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The fastest synchronous SHA-256 hex this node:crypto has, checked once against a known answer. */
function nodeHashing(crypto: Partial<NodeHashing> | undefined): ((token: string) => string) | null {
  const { hash, createHash } = crypto ?? {};
  if (typeof hash === 'function') {
    const oneShot = (token: string) => hash.call(crypto, 'sha256', token, 'hex');
    // SHA-256("abc"), FIPS 180-2: a runtime whose `hash` takes other arguments falls back below.
    try {
      if (oneShot('abc') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad') return oneShot;
    } catch {}
  }
  if (typeof createHash !== 'function') return null;
  return (token) => createHash.call(crypto, 'sha256').update(token, 'utf8').digest('hex');
}
