import { describe, expect, it } from 'vitest';
import { decodeSha256Hex } from './hex.js';

const digits = '0123456789abcdef'.repeat(4);
const expected = Uint8Array.from({ length: 32 }, (_, i) => (((2 * i) % 16) << 4) | ((2 * i + 1) % 16));

describe('decodeSha256Hex', () => {
  it('decodes 64 hex digits in either case, from the start it is given', () => {
    expect(decodeSha256Hex(digits)).toEqual(expected);
    expect(decodeSha256Hex(digits.toUpperCase())).toEqual(expected);
    expect(decodeSha256Hex(`sha256=${digits}`, 7)).toEqual(expected);
    expect(decodeSha256Hex('0'.repeat(64))).toEqual(new Uint8Array(32));
    expect(decodeSha256Hex('f'.repeat(64))).toEqual(new Uint8Array(32).fill(255));
  });

  it('refuses 63 or 65 digits', () => {
    expect(decodeSha256Hex(digits.slice(1))).toBeUndefined();
    expect(decodeSha256Hex(`${digits}0`)).toBeUndefined();
    expect(decodeSha256Hex(`sha256=${digits}`, 6)).toBeUndefined();
  });

  it('refuses a non-ASCII character in place of a digit instead of reading it as 0 (U+0080, U+0100, U+FF10)', () => {
    for (const odd of ['\u0080', '\u0100', '\u0130', '\uff10', '\u0660']) {
      for (const at of [0, 1, 62, 63]) {
        const text = `${'0'.repeat(at)}${odd}${'0'.repeat(63 - at)}`;
        expect(decodeSha256Hex(text), `${odd} at ${at}`).toBeUndefined();
      }
    }
  });

  it('refuses ASCII characters next to the digit ranges, in either half of a byte', () => {
    for (const odd of ['/', ':', '@', 'G', '`', 'g', ' ', '\u007f', '\u0000']) {
      expect(decodeSha256Hex(`${odd}${'0'.repeat(63)}`), `${odd} first`).toBeUndefined();
      expect(decodeSha256Hex(`${'0'.repeat(63)}${odd}`), `${odd} last`).toBeUndefined();
    }
  });
});
