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
