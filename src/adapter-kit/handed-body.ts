import type { AlreadyParsed, RequestBody } from './adapter-request.js';

/**
 * A body a host handed over beside the request, whatever it holds (h3's `toPlainHandler`,
 * Nitro's mock requests): bytes or text as they are, an `ArrayBuffer` as its bytes, an unread
 * stream to read; undefined when it handed none, so the adapter reads the request itself. A
 * stream someone already locked is `used`, anything else (an object a parser made) `parsed`:
 * both answered 500 `Server misconfigured` with their fix.
 *
 * @example
 * ```ts
 * const parsed = { alreadyParsed: 'a body parser', fix: 'Hand over the raw body.' };
 * nodeAdapterRequest(req, { parser: parsed.alreadyParsed, fix: parsed.fix, keptBody: () => handedBody(event._requestBody, parsed) });
 * ```
 * @group Adapter kit
 */
export function handedBody(
  value: unknown,
  parsed: AlreadyParsed,
  used: AlreadyParsed = parsed,
): RequestBody | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  const stream = value as Partial<ReadableStream<Uint8Array>>;
  if (typeof stream.getReader === 'function') return stream.locked ? used : (value as ReadableStream<Uint8Array>);
  return parsed;
}
