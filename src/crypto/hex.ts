// Value of each ASCII hex digit, -1 for every other ASCII character.
const HEX_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUES['0123456789abcdef'.charCodeAt(i)] = i;
  HEX_VALUES['0123456789ABCDEF'.charCodeAt(i)] = i;
}

function hexValue(code: number): number {
  return code < 128 ? HEX_VALUES[code]! : -1; // charCodeAt past the end is NaN, which is not < 128
}

/**
 * Decodes 64 hex digits (either case) into 32 bytes, or returns undefined when the text from
 * `start` on is not exactly that. The format is public, so an early return here leaks nothing secret.
 */
export function decodeSha256Hex(text: string, start = 0): Uint8Array | undefined {
  if (text.length - start !== 64) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const byte = (hexValue(text.charCodeAt(start + 2 * i)) << 4) | hexValue(text.charCodeAt(start + 2 * i + 1));
    if (byte < 0) return undefined; // an invalid digit's -1 makes the whole value negative
    bytes[i] = byte;
  }
  return bytes;
}

/** {@link compareHexDigest}'s answer when the text is not 64 hex digits. */
export const NOT_HEX = -1;

/**
 * A 32-character latin1 digest against the 64 hex digits of `text` from `start` on, in one
 * loop: 0 when they match, 1 when they differ, {@link NOT_HEX} when the text is not exactly 64
 * hex digits (either case). No decode and no second pass: every digit and every digest
 * character is read once, in the same order whatever they hold, and differences and invalid
 * digits are OR-ed together with no early exit, so the time says nothing about where the
 * digest and the signature differ. Only the length, which is public, is checked first.
 */
export function compareHexDigest(digest: string, text: string, start: number): number {
  if (text.length - start !== 64 || digest.length !== 32) return text.length - start === 64 ? 1 : NOT_HEX;
  let difference = 0;
  let invalid = 0;
  for (let i = 0; i < 32; i++) {
    const high = hexDigit(text.charCodeAt(start + 2 * i));
    const low = hexDigit(text.charCodeAt(start + 2 * i + 1));
    invalid |= high | low;
    difference |= ((high << 4) | low) ^ digest.charCodeAt(i);
  }
  // An invalid digit's -1 sets the sign bit of `invalid`.
  return invalid < 0 ? NOT_HEX : difference === 0 ? 0 : 1;
}

/** A hex digit's value or -1, without a branch on the character: above 127 `(127 - code) >> 31` is -1. */
function hexDigit(code: number): number {
  return HEX_VALUES[code & 0x7f]! | ((127 - code) >> 31);
}

/**
 * A verifier that can also compare against the signature's hex text directly (the Node
 * provider's, for bodies its two-pass HMAC takes); internal, so custom providers keep the
 * byte interface. `verifyHex` answers as {@link compareHexDigest} does, or undefined when it
 * cannot take this body and the caller decodes and calls `verify`.
 */
export interface HexComparing {
  verifyHex?(prefix: string, body: Uint8Array, text: string, start: number): number | undefined;
}
