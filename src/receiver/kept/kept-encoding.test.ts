import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { chunkedBase64, fromBase64, randomId, toBase64 } from './kept-encoding.js';

/** `length` bytes running through every value, so each chunk's bytes differ from the last's. */
function bytesOf(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

describe('kept request encoding', () => {
  it('writes standard base64 and reads it back, across the 32 KiB chunks and their edges', () => {
    for (const length of [0, 1, 2, 3, 0xfff, 0x1000, 0x1001, 0x7fff, 0x8000, 0x8001, 0x10000 + 5]) {
      const bytes = bytesOf(length);
      const text = toBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      // The Web-API-only path, for runtimes without node:buffer.
      expect(chunkedBase64(bytes)).toBe(text);
      expect(fromBase64(text)).toEqual(bytes);
    }
    // A view into a larger buffer encodes only its own bytes.
    const whole = bytesOf(100);
    expect(toBase64(whole.subarray(10, 20))).toBe(Buffer.from(whole.subarray(10, 20)).toString('base64'));
  });

  it('gives each kept request an id of its own', () => {
    const ids = new Set(Array.from({ length: 100 }, () => randomId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
