import * as realBuffer from 'node:buffer';
import { afterEach, describe, expect, it, vi } from 'vitest';

// decodeUtf8's UTF-16 fast path (`transcode`, for bodies of 2 KiB and more that are not all
// ASCII) forced on and forced off, by making loadBuiltin hand over node:buffer with spies or
// with the pieces other runtimes lack or get wrong. Either way the answers must be the ones
// toString('utf8') gives; the spies show which path ran, so a mutant of the path's choice
// (the threshold, the ASCII test, the load-time check) is seen even where only speed changes.

type Transcode = NonNullable<typeof realBuffer.transcode>;

async function decoderWith(buffer: Record<string, unknown>) {
  vi.resetModules();
  vi.doMock('../internal/builtin.js', () => ({
    loadBuiltin: (id: string) => (id === 'node:buffer' ? buffer : undefined),
  }));
  return (await import('./utf8.js')).decodeUtf8;
}

afterEach(() => {
  vi.doUnmock('../internal/builtin.js');
  vi.resetModules();
});

const encoder = new TextEncoder();
/** `length` bytes of UTF-8: ASCII filler around one two-byte character. */
const mixed = (length: number) => encoder.encode(`é${'a'.repeat(length - 2)}`);
const ascii = (length: number) => encoder.encode('a'.repeat(length));
const withBom = (length: number) => encoder.encode(`\ufeff${'é'.repeat((length - 3) / 2)}`);
const expected = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('the fast path forced on (node:buffer with a working transcode)', () => {
  function spied() {
    const transcode = vi.fn<Transcode>((...args) => realBuffer.transcode(...args));
    const isAscii = vi.fn((bytes: Uint8Array) => realBuffer.isAscii(bytes));
    return { transcode, isAscii, buffer: { ...realBuffer, transcode, isAscii } };
  }

  it('checks transcode once as the module loads, against a known text with a byte-order mark', async () => {
    const { transcode, buffer } = spied();
    await decoderWith(buffer);
    expect(transcode).toHaveBeenCalledTimes(1);
    expect(Buffer.from(transcode.mock.calls[0]![0]).toString('utf8')).toBe('\ufeff{"a":"é検🚀"}');
    expect(transcode.mock.calls[0]!.slice(1)).toEqual(['utf8', 'utf16le']);
  });

  it('decodes a body of 2048 bytes or more that is not all ASCII through transcode, to the same text', async () => {
    const { transcode, buffer } = spied();
    const decode = await decoderWith(buffer);
    for (const bytes of [mixed(2048), mixed(2049), mixed(10_000), withBom(4097)]) {
      transcode.mockClear();
      expect(decode(bytes)).toBe(expected(bytes));
      expect(transcode, `${bytes.length} bytes`).toHaveBeenCalledTimes(1);
      expect(transcode.mock.calls[0]!.slice(1)).toEqual(['utf8', 'utf16le']);
    }
  });

  it('leaves a smaller body, and an all-ASCII one of any size, to toString', async () => {
    const { transcode, isAscii, buffer } = spied();
    const decode = await decoderWith(buffer);
    transcode.mockClear();
    for (const bytes of [mixed(2047), mixed(10), ascii(2048), ascii(70_000), new Uint8Array(0)]) {
      expect(decode(bytes)).toBe(expected(bytes));
    }
    expect(transcode).not.toHaveBeenCalled();
    // Only the large bodies are asked whether they are ASCII.
    expect(isAscii).toHaveBeenCalledTimes(2);
  });

  it('asks a large all-ASCII body only whether it is ASCII, not again whether it is UTF-8', async () => {
    const { isAscii, buffer } = spied();
    const isUtf8 = vi.fn((bytes: Uint8Array) => realBuffer.isUtf8(bytes));
    const decode = await decoderWith({ ...buffer, isUtf8 });
    // A view into a larger buffer too: only its own bytes are decoded.
    const backing = encoder.encode(`é${'{"a":"b"}'.repeat(300)}é`);
    for (const bytes of [ascii(2048), ascii(70_000), backing.subarray(2, 2 + 2700)]) {
      isAscii.mockClear();
      expect(decode(bytes)).toBe(expected(bytes));
      expect(isAscii).toHaveBeenCalledTimes(1);
    }
    expect(isUtf8).not.toHaveBeenCalled();
  });

  it('decodes or refuses a large ASCII body whose last byte is not ASCII', async () => {
    const { transcode, buffer } = spied();
    const decode = await decoderWith(buffer);
    const endingIn = (...last: number[]) => Uint8Array.from([...ascii(3000 - last.length), ...last]);
    transcode.mockClear();
    expect(decode(endingIn(0xc3, 0xa9))).toBe(`${'a'.repeat(2998)}é`);
    expect(transcode).toHaveBeenCalledTimes(1);
    for (const last of [[0xc3], [0x80], [0xff], [0xe2, 0x82]]) expect(decode(endingIn(...last))).toBeUndefined();
  });

  it('falls back to toString when transcode throws on a body, and refuses invalid UTF-8 before either', async () => {
    const { transcode, buffer } = spied();
    const decode = await decoderWith(buffer);
    transcode.mockImplementation(() => {
      throw new Error('out of memory');
    });
    const bytes = mixed(3000);
    expect(decode(bytes)).toBe(expected(bytes));
    transcode.mockClear();
    const invalid = mixed(3000);
    invalid[100] = 0xff;
    expect(decode(invalid)).toBeUndefined();
    expect(transcode).not.toHaveBeenCalled();
  });
});

describe.each([
  ['without transcode (a runtime without ICU)', { transcode: undefined }],
  ['without isAscii', { isAscii: undefined, transcode: realBuffer.transcode }],
  ['with a transcode that drops the byte-order mark', { transcode: dropping }],
  ['with a transcode that gives other text', { transcode: () => ({ toString: () => 'something else' }) }],
  [
    'with a transcode that throws as the module loads',
    {
      transcode: () => {
        throw new Error('no ICU');
      },
    },
  ],
])('the fast path forced off: node:buffer %s', (_, change) => {
  it('decodes every body with toString, to the same text, a byte-order mark kept', async () => {
    const transcode = change.transcode && vi.fn(change.transcode as Transcode);
    const decode = await decoderWith({ ...realBuffer, ...change, transcode });
    transcode?.mockClear();
    const utf8ToString = vi.spyOn(realBuffer.Buffer.prototype, 'toString');
    try {
      for (const bytes of [mixed(2048), mixed(10_000), withBom(4097), ascii(3000), mixed(100)]) {
        const want = expected(bytes);
        utf8ToString.mockClear();
        const text = decode(bytes);
        expect(utf8ToString).toHaveBeenCalledWith('utf8');
        expect(text).toBe(want);
      }
      const invalid = mixed(3000);
      invalid[2999] = 0xc3;
      expect(decode(invalid)).toBeUndefined();
      expect(transcode ?? vi.fn()).not.toHaveBeenCalled();
    } finally {
      utf8ToString.mockRestore();
    }
  });
});

function dropping(...args: Parameters<Transcode>) {
  const text = realBuffer.transcode(...args).toString('utf16le');
  return { toString: () => text.replace(/^\ufeff/, '') };
}
