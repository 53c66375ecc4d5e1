import { loadBuiltin } from '../internal/builtin.js';

/** Sees each chunk of a body as it is kept, in order: how a streamed HMAC is fed. */
export type ChunkListener = (chunk: Uint8Array) => void;

/**
 * node:buffer's `Buffer`, whose `concat` allocates without zero-filling first, as
 * `new Uint8Array(size)` does: on a 256 KiB body that memset was 262k instructions per request,
 * more than all the rest the adapter adds to the HMAC (callgrind, issue 37 item 5).
 */
const NodeBuffer = loadBuiltin<{ Buffer?: { concat?(list: Uint8Array[], size: number): Uint8Array } }>(
  'node:buffer',
)?.Buffer;

/** Chunks of a body as a stream hands them over, kept within a limit, and joined once it ends. */
export class Chunks {
  private readonly list: Uint8Array[] = [];
  private size = 0;
  constructor(
    readonly limit: number,
    private readonly onChunk: ChunkListener | undefined,
  ) {}

  /** Keeps the chunk and shows it to the listener; false, keeping nothing more, once the total passes the limit. */
  add(chunk: Uint8Array | string): boolean {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    this.size += bytes.byteLength;
    if (this.size > this.limit) return false;
    this.list.push(bytes);
    this.onChunk?.(bytes);
    return true;
  }

  /** The whole body: the one chunk as it came, or every chunk copied into one view. */
  join(): Uint8Array {
    if (this.list.length === 1) return this.list[0]!;
    if (NodeBuffer?.concat) return NodeBuffer.concat(this.list, this.size);
    const body = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.list) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }
}
