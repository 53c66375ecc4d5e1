/**
 * Byte encodings for kept requests, on Web APIs only (`btoa`, `atob`, `crypto.randomUUID`), so they
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

/** A random id for a kept request. */
export function randomId(): string {
  return crypto.randomUUID();
}
