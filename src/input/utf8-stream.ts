/**
 * Bodies from this size on are decoded while they stream in. Below it a body arrives in one
 * or two chunks and decoding it whole afterwards (node:buffer's SIMD validator and decoder)
 * costs no more; above it, decoding chunk by chunk in stream mode is both cheaper per byte
 * than `Buffer#toString` on a large mixed-script body and done while waiting for the network.
 */
export const STREAM_DECODE_FROM_BYTES = 64 * 1024;

/**
 * Strict UTF-8 decoding of a body fed chunk by chunk as it arrives: a fatal `TextDecoder` in
 * stream mode, so a character split between two chunks is carried over, and invalid bytes
 * anywhere (a truncated sequence at the very end included) make the whole body invalid.
 * Exactly as strict as `decodeUtf8` on the whole body: a byte-order mark is kept as text,
 * so `JSON.parse` refuses it as before.
 *
 * Small bodies are not decoded here (see {@link STREAM_DECODE_FROM_BYTES}): their chunks are
 * only held until the body proves large, and {@link StreamedUtf8.finish} then answers
 * undefined, leaving the decoding to the core.
 */
export class StreamedUtf8 {
  private decoder: TextDecoder | undefined;
  /** Chunks seen before the body reached the size worth streaming; dropped once decoded. */
  private pending: Uint8Array[] | undefined = [];
  private seen = 0;
  private text = '';
  private invalid = false;

  /** Takes the next chunk of the body, in order. Never throws: invalid bytes are remembered. */
  update(chunk: Uint8Array): void {
    if (this.invalid) return;
    this.seen += chunk.byteLength;
    if (this.pending !== undefined) {
      this.pending.push(chunk);
      if (this.seen < STREAM_DECODE_FROM_BYTES) return;
      const pending = this.pending;
      this.pending = undefined;
      this.decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      for (const held of pending) this.decode(held);
      return;
    }
    this.decode(chunk);
  }

  /**
   * Ends the body: its text; null when it is not valid UTF-8; undefined when it was too small
   * to be decoded here. Once: the decoder is done afterwards.
   */
  finish(): string | null | undefined {
    if (this.invalid) return null;
    if (this.decoder === undefined) {
      this.pending = undefined;
      return undefined;
    }
    try {
      // The flush throws on a sequence the last chunk left unfinished.
      const text = this.text + this.decoder.decode();
      this.text = '';
      return text;
    } catch {
      return null;
    }
  }

  private decode(chunk: Uint8Array): void {
    try {
      this.text += this.decoder!.decode(chunk, { stream: true });
    } catch {
      this.invalid = true;
      this.text = '';
    }
  }
}
