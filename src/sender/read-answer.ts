/**
 * How much of an answer the tools read. The service keeps a short answer (`ok`, `error`,
 * `published_url`); a body past this is cut, and the rest is never downloaded.
 */
export const ANSWER_LIMIT_BYTES = 64 * 1024;

/** An answer's body as far as it was read. */
export interface CappedText {
  text: string;
  /** True when the answer went on past the limit: the rest was cancelled, not read. */
  truncated: boolean;
}

/**
 * Reads at most `limit` bytes of a response's body and cancels the rest, so an endless or
 * huge answer costs 64 KiB, not the process's memory. Decodes as UTF-8; a character cut at
 * the limit becomes U+FFFD.
 */
export async function readCapped(response: Response, limit = ANSWER_LIMIT_BYTES): Promise<CappedText> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (size < limit) {
      const { value, done } = await reader.read();
      if (done) break;
      const room = limit - size;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      size += Math.min(value.byteLength, room);
      if (value.byteLength > room) truncated = true;
    }
    // Exactly at the limit: one more read tells a body that ends there from one that goes on.
    if (!truncated && size >= limit) truncated = !(await reader.read()).done;
  } finally {
    // Cancelling closes the connection: the server stops sending and nothing more is buffered.
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), truncated };
}

/** The answer as JSON when it parses, else its text: how every tool shows what an endpoint said. */
export function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Reads at most `limit` bytes of an answer ({@link readCapped}) and parses it ({@link parsedBody}). */
export async function readAnswer(
  response: Response,
  limit = ANSWER_LIMIT_BYTES,
): Promise<{ body: unknown; truncated: boolean }> {
  const { text, truncated } = await readCapped(response, limit);
  return { body: parsedBody(text), truncated };
}
