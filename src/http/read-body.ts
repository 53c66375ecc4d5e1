/** A body the adapter has not read yet: a Node request (async iterable) or a Fetch stream. */
export type BodyStream = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/**
 * Reads a stream into one buffer, stopping as soon as it passes `limit`: an oversized body
 * costs at most `limit` bytes of memory. Returns undefined when it was too large.
 */
export async function readLimited(stream: BodyStream, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of iterate(stream)) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > limit) return undefined;
    chunks.push(bytes);
  }
  if (chunks.length === 1) return chunks[0];
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

async function* iterate(stream: BodyStream): AsyncIterable<Uint8Array | string> {
  if (Symbol.asyncIterator in stream) {
    yield* stream as AsyncIterable<Uint8Array | string>;
    return;
  }
  // Not every runtime makes ReadableStream async-iterable yet, so read it the long way.
  const reader = (stream as ReadableStream<Uint8Array>).getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}
