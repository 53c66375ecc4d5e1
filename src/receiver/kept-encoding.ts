/**
 * Byte encodings for kept requests, on Web APIs only (`btoa`, `atob`, Web Crypto), so they
 * run unchanged on Node, Bun, Deno and Workers.
 */

const CHUNK = 0x8000;

/** Bytes as base64, built in chunks so a large body never overflows the argument list. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** The bytes a {@link toBase64} text stands for. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** SHA-256 of a token's bytes, lower-case hex: what a store keeps instead of the token. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** A random id for a kept request. */
export function randomId(): string {
  return crypto.randomUUID();
}
