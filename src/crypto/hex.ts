/**
 * Decodes 64 hex digits (either case) into 32 bytes, or returns undefined when the text is
 * not exactly that. The format is public, so an early return here leaks nothing secret.
 */
export function decodeSha256Hex(text: string): Uint8Array | undefined {
  if (text.length !== 64) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const high = nibble(text.charCodeAt(2 * i));
    const low = nibble(text.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    bytes[i] = (high << 4) | low;
  }
  return bytes;
}

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20; // A-F and a-f share their low bits
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** Lower-case hex of any bytes, for signing (testing helpers) and store keys. */
export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, '0');
  return out;
}
