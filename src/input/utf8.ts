import { loadBuiltin } from '../internal/builtin.js';

/** The slice of node:buffer the fast path uses; declared here so the core needs no Node types. */
interface NodeBuffer {
  isUtf8(bytes: Uint8Array): boolean;
  isAscii?(bytes: Uint8Array): boolean;
  transcode?(bytes: Uint8Array, from: 'utf8', to: 'utf16le'): { toString(encoding: 'utf16le'): string };
  Buffer: {
    from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBytes;
    isBuffer(value: unknown): boolean;
  };
}

type NodeBytes = Uint8Array & { toString(encoding: 'utf8' | 'latin1'): string };

/**
 * From this size on, a body that is not all ASCII is turned into UTF-16 by `transcode` and read
 * as such: on Node 20, 1.6× faster than `toString('utf8')` at 2 KiB of the bench's mixed text
 * and 2× to 2.5× from 4 KiB (English with a few typographic quotes included), where V8's own
 * decoder leaves its fast path at the first non-ASCII byte. Below it, the call costs more than
 * it saves (0.64× at 1 KiB).
 */
const TRANSCODE_MIN_BYTES = 2048;

// A byte-order mark, Latin, CJK and a character outside the BMP: what `wideDecoder`'s check must keep.
// Declared before `decodeUtf8`, which runs that check as the module loads.
const KNOWN = '\ufeff{"a":"é検🚀"}';

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
  const wide = wideDecoder(buffer);
  // Node hands request bodies over as Buffers already; only other views need a Buffer made over them.
  const asBuffer = (bytes: Uint8Array): NodeBytes =>
    Buffer.isBuffer(bytes) ? (bytes as NodeBytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (bytes) => {
    if (wide && bytes.byteLength >= TRANSCODE_MIN_BYTES) return wide(asBuffer(bytes));
    return isUtf8(bytes) ? asBuffer(bytes).toString('utf8') : undefined;
  };
}

/**
 * A large body as text, or undefined for invalid UTF-8: asked first whether it is all ASCII,
 * which is valid UTF-8 as it is (a second SIMD pass to validate it cost 53k instructions at
 * 256 KiB, callgrind, issue 37 item 5); otherwise validated, then through `transcode` to UTF-16.
 * Only where `transcode` gives the known answer (a runtime without ICU has none, and one that
 * dropped the byte-order mark would let a BOM through).
 */
function wideDecoder(buffer: NodeBuffer): ((bytes: NodeBytes) => string | undefined) | undefined {
  const { transcode, isAscii, isUtf8 } = buffer;
  if (typeof transcode !== 'function' || typeof isAscii !== 'function') return undefined;
  try {
    const known = new TextEncoder().encode(KNOWN);
    const bytes = buffer.Buffer.from(known.buffer, known.byteOffset, known.byteLength);
    if (transcode(bytes, 'utf8', 'utf16le').toString('utf16le') !== KNOWN) return undefined;
  } catch {
    return undefined;
  }
  return (bytes) => {
    if (isAscii(bytes)) return bytes.toString('latin1');
    if (!isUtf8(bytes)) return undefined;
    try {
      return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
    } catch {
      return bytes.toString('utf8');
    }
  };
}
