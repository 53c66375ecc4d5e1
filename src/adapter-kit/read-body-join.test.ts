import * as realBuffer from 'node:buffer';
import { afterEach, describe, expect, it, vi } from 'vitest';

// How a body read in chunks is joined into one view. `new Uint8Array(size)` zero-fills its
// memory before the chunks are copied in: on a 256 KiB body that was 262k instructions of
// memset per request, more than the rest of what the adapter does beside the HMAC (issue 37
// item 5). node:buffer's `Buffer.concat` allocates without that; without node:buffer (a Worker
// without nodejs_compat) the chunks are copied into a plain Uint8Array.

async function readerWith(buffer: unknown) {
  vi.resetModules();
  vi.doMock('../internal/builtin.js', () => ({
    loadBuiltin: (id: string) => (id === 'node:buffer' ? buffer : undefined),
  }));
  return (await import('./read-body.js')).readLimited;
}

afterEach(() => {
  vi.doUnmock('../internal/builtin.js');
  vi.resetModules();
});

/** A Fetch stream of the given chunks. */
function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

const encoder = new TextEncoder();
/** ASCII with one multi-byte character at the very end: a fast path that loses a byte shows. */
const body = encoder.encode(`${'{"a":"'.padEnd(300, 'x')}"}é`);
/** The body cut at `at`: every boundary, the multi-byte character's own included. */
const splitAt = (bytes: Uint8Array, at: number[]) =>
  [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.byteLength));

describe.each([
  ['with node:buffer', realBuffer],
  ['without node:buffer', undefined],
  ['with a node:buffer lacking Buffer', {}],
])('joining a body read in chunks, %s', (_, buffer) => {
  it('gives the same bytes wherever the chunks split it, into two chunks or one byte each', async () => {
    const read = await readerWith(buffer);
    for (let at = 1; at < body.byteLength; at++) {
      const joined = await read(stream(splitAt(body, [at])), 1000);
      expect([...joined!], `split at ${at}`).toEqual([...body]);
    }
    const bytes = [...body].map((byte) => Uint8Array.of(byte));
    expect([...(await read(stream(bytes), 1000))!]).toEqual([...body]);
  });

  it('hands a single chunk over as it came, and an empty body as no bytes', async () => {
    const read = await readerWith(buffer);
    const chunk = body.subarray(5, 50);
    expect(await read(stream([chunk]), 1000)).toBe(chunk);
    expect((await read(stream([]), 1000))?.byteLength).toBe(0);
  });
});

describe('with node:buffer', () => {
  it('joins several chunks with Buffer.concat, at their total size, so the memory is not zero-filled first', async () => {
    const concat = vi.fn((list: Uint8Array[], size: number) => realBuffer.Buffer.concat(list, size));
    const read = await readerWith({ ...realBuffer, Buffer: { concat } });
    const chunks = splitAt(body, [100, 200]);
    expect(await read(stream(chunks), 1000)).toEqual(realBuffer.Buffer.from(body));
    expect(concat).toHaveBeenCalledTimes(1);
    expect(concat.mock.calls[0]).toEqual([chunks, body.byteLength]);
    concat.mockClear();
    await read(stream([body]), 1000);
    expect(concat).not.toHaveBeenCalled();
  });
});
