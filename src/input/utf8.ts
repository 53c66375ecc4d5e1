import { loadBuiltin } from '../internal/builtin.js';

/** The slice of node:buffer the fast path uses; declared here so the core needs no Node types. */
interface NodeBuffer {
  isUtf8(bytes: Uint8Array): boolean;
  Buffer: {
    from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: 'utf8'): string };
    isBuffer(value: unknown): boolean;
  };
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes strict UTF-8, or returns undefined for invalid bytes. A byte-order mark is kept, so
 * JSON.parse refuses it as it refuses any other stray character.
 *
 * Where node:buffer is at hand (Node, Bun, Deno), its SIMD validator plus Buffer's decoder is
 * faster than a fatal TextDecoder for the same answer.
 */
export const decodeUtf8: (bytes: Uint8Array) => string | undefined = nodeDecoder() ?? webDecode;

function webDecode(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

function nodeDecoder(): ((bytes: Uint8Array) => string | undefined) | undefined {
  const buffer = loadBuiltin<NodeBuffer>('node:buffer');
  if (typeof buffer?.isUtf8 !== 'function' || typeof buffer.Buffer?.from !== 'function') return undefined;
  const { isUtf8, Buffer } = buffer;
  // Node hands request bodies over as Buffers already; only other views need a Buffer made over them.
  const asBuffer = (bytes: Uint8Array) =>
    Buffer.isBuffer(bytes)
      ? (bytes as unknown as { toString(encoding: 'utf8'): string })
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (bytes) => (isUtf8(bytes) ? asBuffer(bytes).toString('utf8') : undefined);
}
