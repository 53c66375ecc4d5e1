import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './utf8.js';
import { STREAM_DECODE_FROM_BYTES, StreamedUtf8 } from './utf8-stream.js';

/** Mixed text whose characters take 1 to 4 UTF-8 bytes, so cuts fall inside characters. */
const TEXT = 'Le référencement — « SEO ». 検索エンジン最適化 🚀 plain ASCII. ';
const encoder = new TextEncoder();

function large(extra = ''): Uint8Array {
  return encoder.encode(`${TEXT.repeat(Math.ceil((2 * STREAM_DECODE_FROM_BYTES) / TEXT.length))}${extra}`);
}

/** The body cut into chunks of the given sizes (the last one takes the rest). */
function chunks(body: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; offset < body.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(body.subarray(offset, offset + size));
    offset += size;
  }
  return out;
}

function streamed(parts: Uint8Array[]): string | null | undefined {
  const utf8 = new StreamedUtf8();
  for (const part of parts) utf8.update(part);
  return utf8.finish();
}

describe('StreamedUtf8', () => {
  it.each([[[65_536]], [[16_384]], [[1, 2, 3, 5, 7, 11, 13]], [[1000, 1]], [[3]]])(
    'decodes a large body cut into chunks of %j exactly as decodeUtf8 does',
    (sizes) => {
      const body = large();
      expect(streamed(chunks(body, sizes))).toBe(decodeUtf8(body));
    },
  );

  it('leaves a body smaller than the streaming size to the core', () => {
    const body = encoder.encode(TEXT);
    expect(streamed(chunks(body, [7]))).toBeUndefined();
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a UTF-8 encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short inside the body', [0xe6, 0x41]],
  ])('refuses %s anywhere in a large body, whatever the chunking', (_what, bad) => {
    const body = large();
    for (const at of [0, 1, STREAM_DECODE_FROM_BYTES - 1, STREAM_DECODE_FROM_BYTES + 3, body.length - 4]) {
      const spoiled = new Uint8Array(body.length + bad.length);
      spoiled.set(body.subarray(0, at));
      spoiled.set(bad, at);
      spoiled.set(body.subarray(at), at + bad.length);
      expect(decodeUtf8(spoiled)).toBeUndefined();
      for (const sizes of [[65_536], [1, 2, 3], [4096]]) expect(streamed(chunks(spoiled, sizes))).toBeNull();
    }
  });

  it('refuses a body whose last character is cut short at its very end', () => {
    const body = large('🚀');
    const cut = body.subarray(0, body.length - 1);
    expect(decodeUtf8(cut)).toBeUndefined();
    expect(streamed(chunks(cut, [65_536]))).toBeNull();
  });

  it('keeps a byte-order mark as text, so JSON.parse refuses it as it does for decodeUtf8', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...large()]);
    const text = streamed(chunks(body, [2, 65_536]));
    expect(text).toBe(decodeUtf8(body));
    expect(text?.charCodeAt(0)).toBe(0xfeff);
  });

  it('answers null again, never text, when asked after invalid bytes', () => {
    const utf8 = new StreamedUtf8();
    utf8.update(large());
    utf8.update(new Uint8Array([0xff]));
    utf8.update(encoder.encode('more valid text'));
    expect(utf8.finish()).toBeNull();
  });
});
