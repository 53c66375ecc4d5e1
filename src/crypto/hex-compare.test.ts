import { describe, expect, it } from 'vitest';
import { loggedText, range, type ReadLog, readsOf } from '../internal/read-log.js';
import { compareHexDigest, NOT_HEX } from './hex.js';

// The digest as node:crypto's latin1 output gives it: one character per byte.
const bytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const digest = String.fromCharCode(...bytes);
const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const signature = `sha256=${hex}`;
const START = 7;

describe('compareHexDigest', () => {
  it('matches the hex text of the digest in either case, from the start it is given', () => {
    expect(compareHexDigest(digest, signature, START)).toBe(0);
    expect(compareHexDigest(digest, `sha256=${hex.toUpperCase()}`, START)).toBe(0);
    expect(compareHexDigest(digest, hex, 0)).toBe(0);
  });

  it('answers 1 for a different digest, at every position of either half of a byte', () => {
    for (let at = 0; at < 64; at++) {
      const other = hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
      expect(compareHexDigest(digest, other, 0), `digit ${at}`).toBe(1);
    }
  });

  it('never matches a digest of another length than 32 characters', () => {
    expect(compareHexDigest(digest.slice(0, 31), hex, 0)).toBe(1);
    expect(compareHexDigest(`${digest}\u0000`, hex, 0)).toBe(1);
    expect(compareHexDigest('', hex, 0)).toBe(1);
  });

  it('answers NOT_HEX for 63 or 65 digits and for any non-digit, even where the digest matches', () => {
    expect(compareHexDigest(digest, hex.slice(1), 0)).toBe(NOT_HEX);
    expect(compareHexDigest(digest, `${hex}0`, 0)).toBe(NOT_HEX);
    for (const odd of ['/', ':', '@', 'G', '`', 'g', ' ', '\u007f', '\u0000']) {
      expect(compareHexDigest(digest, `${odd}${hex.slice(1)}`, 0), `${odd} first`).toBe(NOT_HEX);
      expect(compareHexDigest(digest, `${hex.slice(0, 63)}${odd}`, 0), `${odd} last`).toBe(NOT_HEX);
    }
  });

  it('refuses a non-ASCII character whose low seven bits are a hex digit (U+00E1, U+0161, U+FF10)', () => {
    // 0xE1 & 0x7F is 'a', 0x161 & 0x7F is 'a', 0xFF10 & 0x7F is 0x10: a table read alone would alias.
    for (const odd of ['\u00e1', '\u0161', '\u00b0', '\u0130', '\uff10', '\u0660']) {
      for (const at of [0, 1, 62, 63]) {
        const text = hex.slice(0, at) + odd + hex.slice(at + 1);
        expect(compareHexDigest(digest, text, 0), `${odd} at ${at}`).toBe(NOT_HEX);
      }
    }
  });
});

describe('compareHexDigest reads every digit and digest character, the same way whatever they hold', () => {
  function record(text: string): { answer: number; log: ReadLog } {
    const log: ReadLog = [];
    const answer = compareHexDigest(loggedText(digest, log, 'd'), loggedText(text, log, 's'), START);
    return { answer, log };
  }

  it('for a match, a difference at each digit, and a non-hex digit at each position', () => {
    const same = record(signature);
    expect(same.answer).toBe(0);
    expect(readsOf(same.log, 'd')).toEqual(range(0, 32));
    expect(readsOf(same.log, 's')).toEqual(range(START, START + 64));
    for (let at = START; at < signature.length; at++) {
      const flipped = signature.slice(0, at) + (signature[at] === '0' ? '1' : '0') + signature.slice(at + 1);
      const differing = record(flipped);
      expect(differing.answer, `difference at ${at}`).toBe(1);
      expect(differing.log, `difference at ${at}`).toEqual(same.log);
      const invalid = record(`${signature.slice(0, at)}z${signature.slice(at + 1)}`);
      expect(invalid.answer, `non-hex at ${at}`).toBe(NOT_HEX);
      expect(invalid.log, `non-hex at ${at}`).toEqual(same.log);
    }
  });
});
