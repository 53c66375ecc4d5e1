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

describe('decodeUtf8 on bodies of 2 KiB and more (decoded through UTF-16)', () => {
  const paragraph = 'Le référencement — « SEO » — 検索エンジン最適化 🚀, then “quotes”. ';
  const large = (text: string) => Buffer.from(text.repeat(Math.ceil(4096 / Buffer.byteLength(text))));

  it('decodes exactly what toString and a fatal TextDecoder decode', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    for (const body of [large(paragraph), large('plain ASCII only. '), large(`${'a'.repeat(2047)}é`)]) {
      expect(body.byteLength).toBeGreaterThanOrEqual(2048);
      expect(decodeUtf8(body)).toBe(body.toString('utf8'));
      expect(decodeUtf8(body)).toBe(strict.decode(body));
    }
  });

  it('decodes random text of every UTF-8 length, sizes around the switch included', () => {
    let seed = 0x2545f491;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    // One range per encoded length: 1, 2, 3 (surrogates skipped) and 4 bytes.
    const ranges = [
      [0x20, 0x7e],
      [0x80, 0x7ff],
      [0x800, 0xd7ff],
      [0xe000, 0xfffd],
      [0x10000, 0x10ffff],
    ] as const;
    for (let sample = 0; sample < 60; sample++) {
      const target = 1900 + (next() % 3000);
      let text = '';
      while (Buffer.byteLength(text) < target) {
        const [low, high] = ranges[next() % ranges.length]!;
        text += String.fromCodePoint(low + (next() % (high - low + 1)));
      }
      const body = Buffer.from(text);
      expect(decodeUtf8(body)).toBe(text);
      expect(decodeUtf8(new Uint8Array(body))).toBe(text);
    }
  });

  it('keeps a byte-order mark and decodes only the view it is given', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), large(paragraph)]);
    expect(decodeUtf8(body)).toBe(`\ufeff${large(paragraph).toString('utf8')}`);
    const backing = Buffer.concat([Buffer.from('xx'), large(paragraph), Buffer.from('yy')]);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 2, backing.byteLength - 4);
    expect(decodeUtf8(view)).toBe(large(paragraph).toString('utf8'));
  });

  it('refuses invalid UTF-8 anywhere in a large body', () => {
    const body = large(paragraph);
    for (const [at, bad] of [
      [0, [0xff]],
      [1500, [0xed, 0xa0, 0x80]],
      [body.byteLength - 1, [0xc3]],
    ] as const) {
      const broken = Buffer.from(body);
      broken.set(bad, at);
      expect(decodeUtf8(broken)).toBeUndefined();
    }
  });
});
