import { loadBuiltin } from '../internal/builtin.js';
import type { MaybePromise } from '../internal/maybe.js';

/** The slice of node:crypto used here; declared so the core needs no Node types. */
interface NodeHashing {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
}

const encoder = new TextEncoder();
let node: NodeHashing | null | undefined;

/**
 * SHA-256 of a token's UTF-8 bytes as lower-case hex: what tenants are looked up by and what
 * kept requests store instead of the token. Synchronous where node:crypto is (Node, Bun, Deno,
 * Workers with `nodejs_compat`), so a cached tenant costs no promise turn; Web Crypto elsewhere.
 */
export function tokenSha256Hex(token: string): MaybePromise<string> {
  if (node === undefined) {
    const loaded = loadBuiltin<Partial<NodeHashing>>('node:crypto');
    node = typeof loaded?.createHash === 'function' ? (loaded as NodeHashing) : null;
  }
  if (node) return node.createHash('sha256').update(token, 'utf8').digest('hex');
  return webSha256Hex(encoder.encode(token));
}

/** SHA-256 through Web Crypto, lower-case hex. */
export async function webSha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
