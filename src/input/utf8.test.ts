import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './utf8.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('decodeUtf8 under Node (node:buffer)', () => {
  it('decodes only the view it is given, not the rest of its buffer', () => {
    const backing = new TextEncoder().encode('xx{"a":"é"}yy');
    expect(decodeUtf8(backing.subarray(2, backing.length - 2))).toBe('{"a":"é"}');
    expect(decodeUtf8(Buffer.from('{"b":1}'))).toBe('{"b":1}');
  });

  it('refuses invalid UTF-8 and keeps a byte-order mark, as the strict decoder does', () => {
    expect(decodeUtf8(bytes(0x7b, 0xff, 0x7d))).toBeUndefined();
    expect(decodeUtf8(bytes(0xed, 0xa0, 0x80))).toBeUndefined();
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBe('\ufeff{}');
  });
});
