import { describe, expect, it } from 'vitest';
import { constantTimeEqual, constantTimeEqualAscii } from './constant-time.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('constantTimeEqual', () => {
  it('is true only for the same bytes, whatever the lengths', () => {
    expect(constantTimeEqual(bytes('abc'), bytes('abc'))).toBe(true);
    expect(constantTimeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    expect(constantTimeEqual(bytes('abc'), bytes('abd'))).toBe(false);
    expect(constantTimeEqual(bytes('abc'), bytes('ab'))).toBe(false);
    expect(constantTimeEqual(bytes('ab'), bytes('abc'))).toBe(false);
    // A longer side whose extra bytes are 0 still differs by its length.
    expect(constantTimeEqual(Uint8Array.of(1, 0), Uint8Array.of(1))).toBe(false);
    expect(constantTimeEqual(Uint8Array.of(0), new Uint8Array(0))).toBe(false);
  });
});

describe('constantTimeEqualAscii (header text against UTF-8 bytes, without encoding)', () => {
  it('compares the text from its start on', () => {
    expect(constantTimeEqualAscii('Bearer abc', 7, bytes('abc'))).toBe(true);
    expect(constantTimeEqualAscii('Bearer abc', 6, bytes('abc'))).toBe(false);
    expect(constantTimeEqualAscii('Bearer abc', 8, bytes('abc'))).toBe(false);
    expect(constantTimeEqualAscii('Bearer abd', 7, bytes('abc'))).toBe(false);
    expect(constantTimeEqualAscii('x', 1, new Uint8Array(0))).toBe(true);
  });

  it('differs when one side is longer, even by a 0 byte or a NUL character', () => {
    expect(constantTimeEqualAscii('abc', 0, bytes('ab'))).toBe(false);
    expect(constantTimeEqualAscii('ab', 0, bytes('abc'))).toBe(false);
    expect(constantTimeEqualAscii('a', 0, Uint8Array.of(97, 0))).toBe(false);
    expect(constantTimeEqualAscii('a\u0000', 0, Uint8Array.of(97))).toBe(false);
  });

  it('answers undefined (encode and compare instead) for any character past ASCII, even one that equals a byte', () => {
    expect(constantTimeEqualAscii('\u00e9', 0, Uint8Array.of(0xe9))).toBeUndefined();
    expect(constantTimeEqualAscii('\u0080', 0, Uint8Array.of(0x80))).toBeUndefined();
    expect(constantTimeEqualAscii('abc\u00ff', 0, bytes('abc'))).toBeUndefined();
    expect(constantTimeEqualAscii('\u20ac', 0, bytes('\u20ac'))).toBeUndefined();
  });

  it('answers for text that is all ASCII, up to DEL', () => {
    expect(constantTimeEqualAscii('a\u007f', 0, Uint8Array.of(97, 0x7f))).toBe(true);
    expect(constantTimeEqualAscii('a\u007f', 0, Uint8Array.of(97, 0x7e))).toBe(false);
  });

  it('ignores a non-ASCII character before its start', () => {
    expect(constantTimeEqualAscii('\u00e9 abc', 2, bytes('abc'))).toBe(true);
  });
});
