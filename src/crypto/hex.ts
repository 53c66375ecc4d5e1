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

/**
 * The first 128 bits of a hex text (either case) packed into a short string that starts with
 * `#`, one UTF-16 unit per four digits: a compact, case-blind map key. Undefined when the text
 * does not start with 32 hex digits.
 */
export function hex128Key(text: string): string | undefined {
  const a = hexUnit(text, 0);
  const b = hexUnit(text, 4);
  const c = hexUnit(text, 8);
  const d = hexUnit(text, 12);
  const e = hexUnit(text, 16);
  const f = hexUnit(text, 20);
  const g = hexUnit(text, 24);
  const h = hexUnit(text, 28);
  if ((a | b | c | d | e | f | g | h) < 0) return undefined;
  return String.fromCharCode(0x23, a, b, c, d, e, f, g, h);
}

function hexUnit(text: string, at: number): number {
  return (
    (hexValue(text.charCodeAt(at)) << 12) |
    (hexValue(text.charCodeAt(at + 1)) << 8) |
    (hexValue(text.charCodeAt(at + 2)) << 4) |
    hexValue(text.charCodeAt(at + 3))
  );
}

/** Lower-case hex of any bytes, for the testing helpers' signer. */
export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, '0');
  return out;
}
