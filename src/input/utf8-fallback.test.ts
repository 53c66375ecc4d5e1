import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The strict decoder used where node:buffer is missing (Workers without nodejs_compat, Node
 * before 20.16): forced under Node by making loadBuiltin find nothing, or something unusable.
 */
async function decoderWhere(buffer: unknown) {
  vi.resetModules();
  vi.doMock('../internal/builtin.js', () => ({ loadBuiltin: () => buffer }));
  return (await import('./utf8.js')).decodeUtf8;
}

afterEach(() => {
  vi.doUnmock('../internal/builtin.js');
  vi.resetModules();
});

const bytes = (...values: number[]) => Uint8Array.from(values);

describe.each([
  ['no node:buffer', undefined],
  ['a node:buffer without isUtf8', { Buffer: { from: () => 'x', isBuffer: () => false } }],
  ['a node:buffer without Buffer.from', { isUtf8: (): boolean => true, Buffer: {} }],
  ['a node:buffer without Buffer', { isUtf8: (): boolean => true }],
])('the strict decoder, with %s', (_, buffer) => {
  it('decodes valid UTF-8, multi-byte characters included', async () => {
    const decode = await decoderWhere(buffer);
    expect(decode(new TextEncoder().encode('{"title":"Héllo € 🔑"}'))).toBe('{"title":"Héllo € 🔑"}');
    expect(decode(new Uint8Array(0))).toBe('');
  });

  it('refuses invalid UTF-8 instead of replacing it: a stray byte, an overlong form, a surrogate, a cut sequence', async () => {
    const decode = await decoderWhere(buffer);
    expect(decode(bytes(0x7b, 0xff, 0x7d))).toBeUndefined();
    expect(decode(bytes(0xc0, 0x80))).toBeUndefined();
    expect(decode(bytes(0xed, 0xa0, 0x80))).toBeUndefined();
    expect(decode(bytes(0x7b, 0xe2, 0x82))).toBeUndefined();
  });

  it('keeps a byte-order mark, so JSON.parse refuses it', async () => {
    const decode = await decoderWhere(buffer);
    expect(decode(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBe('\ufeff{}');
  });
});

describe('the node:buffer decoder', () => {
  it('uses isUtf8 and Buffer when node:buffer has both', async () => {
    const isUtf8 = vi.fn(() => true);
    const bufferToString = vi.fn(() => 'decoded by Buffer');
    const from = vi.fn(() => ({ toString: bufferToString }));
    const decode = await decoderWhere({ isUtf8, Buffer: { from, isBuffer: () => false } });
    const backing = new Uint8Array([1, 2, 3, 4, 5]);
    const view = backing.subarray(1, 4);
    expect(decode(view)).toBe('decoded by Buffer');
    expect(isUtf8).toHaveBeenCalledWith(view);
    expect(from).toHaveBeenCalledWith(backing.buffer, 1, 3);
    expect(bufferToString).toHaveBeenCalledWith('utf8');
  });

  it('answers undefined without decoding when isUtf8 says no', async () => {
    const from = vi.fn();
    const decode = await decoderWhere({ isUtf8: () => false, Buffer: { from, isBuffer: () => false } });
    expect(decode(bytes(0x41))).toBeUndefined();
    expect(from).not.toHaveBeenCalled();
  });

  it('decodes a Buffer directly, without making another over it', async () => {
    const from = vi.fn();
    const buffer = { toString: vi.fn(() => 'the buffer itself') };
    const decode = await decoderWhere({ isUtf8: () => true, Buffer: { from, isBuffer: (v: unknown) => v === buffer } });
    expect(decode(buffer as unknown as Uint8Array)).toBe('the buffer itself');
    expect(from).not.toHaveBeenCalled();
  });
});
