import { loadBuiltin } from '../internal/builtin.js';
import { compareHexDigest } from './hex.js';

/**
 * node:crypto's one-shot `hash` (Node 20.12+, 21.7+), declared here so the core needs no Node
 * types. Asked for `latin1` output: a 32-character string is a small heap object, where a
 * `Buffer` digest is an off-heap allocation that costs more than the hashing of a 1 KiB body.
 */
export type OneShotHash = (algorithm: 'sha256', data: Uint8Array, outputEncoding: 'latin1') => string;

/** SHA-256 works on 64-byte blocks: the HMAC key is padded (or first hashed) to one block. */
const BLOCK = 64;
const DIGEST = 32;

/**
 * Largest body the two-pass construction takes. Its message must be one contiguous buffer
 * (ipad, prefix, body), so the body is copied once; above this size that copy costs more than
 * the per-call overhead of `createHmac` it saves (measured on Node 20: ahead by about 0.5 µs
 * up to 16 KiB, level at 32–64 KiB). Larger and streamed bodies keep `createHmac`.
 */
export const TWO_PASS_MAX_BODY_BYTES = 64 * 1024;

/** Timestamps are ten digits; a longer prefix is unusual enough to take the general path. */
const MAX_PREFIX = 64;

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot SHA-256 calls over precomputed pad blocks:
 * inner = SHA-256(ipad ‖ message), HMAC = SHA-256(opad ‖ inner). For a small body this
 * costs less than a `createHmac` object per call, which is most of an HMAC's time at 1 KiB.
 *
 * The pads are key material kept in JavaScript memory (a `KeyObject` keeps its key in native
 * memory instead); each instance reuses one scratch buffer, which holds the inner pad and the
 * last message hashed, so a delivery allocates nothing but the two digest strings.
 * Synchronous and single-threaded, so the buffer is never shared by two calls at once.
 */
export class TwoPassHmac {
  /** ipad ‖ prefix ‖ body, grown on demand up to the size limit; the pad stays in front. */
  private scratch: Uint8Array;
  /** A view of `scratch` of the last message's length: most deliveries repeat a size, saving the view. */
  private view: Uint8Array;
  /** opad ‖ inner digest. */
  private readonly outer = new Uint8Array(BLOCK + DIGEST);
  private readonly ipad = new Uint8Array(BLOCK);

  constructor(
    private readonly hash: OneShotHash,
    key: Uint8Array,
  ) {
    // RFC 2104: a key longer than the block is replaced by its hash; a shorter one is zero-padded.
    const block = new Uint8Array(BLOCK);
    if (key.byteLength <= BLOCK) block.set(key);
    else writeLatin1(block, 0, hash('sha256', key, 'latin1'));
    for (let i = 0; i < BLOCK; i++) {
      this.ipad[i] = block[i]! ^ 0x36;
      this.outer[i] = block[i]! ^ 0x5c;
    }
    block.fill(0);
    this.scratch = this.grown(0, 1024);
    this.view = this.scratch.subarray(0, 0);
  }

  /**
   * Whether HMAC-SHA256 over `prefix` and `body` equals `expected`, compared in constant time;
   * undefined when the message is too large for this construction (the caller then uses
   * `createHmac`).
   */
  matches(prefix: string, body: Uint8Array, expected: Uint8Array): boolean | undefined {
    const digest = this.digest(prefix, body);
    return digest === undefined ? undefined : equalLatin1(digest, expected);
  }

  /**
   * Like {@link TwoPassHmac.matches}, against the 64 hex digits of `text` from `start` on,
   * compared as text (see `compareHexDigest`): 0 match, 1 mismatch, -1 not hex; undefined
   * when the message is too large for this construction.
   */
  matchesHex(prefix: string, body: Uint8Array, text: string, start: number): number | undefined {
    const digest = this.digest(prefix, body);
    return digest === undefined ? undefined : compareHexDigest(digest, text, start);
  }

  /**
   * HMAC-SHA256 over the ASCII `prefix` followed by `body`, as a 32-character latin1 string
   * (one character per byte), or undefined when the message is too large for this
   * construction. The prefix is written one byte per character, keeping the low byte, as
   * node:crypto's `latin1` encoding does.
   */
  digest(prefix: string, body: Uint8Array): string | undefined {
    const prefixLength = prefix.length;
    if (body.byteLength > TWO_PASS_MAX_BODY_BYTES || prefixLength > MAX_PREFIX) return undefined;
    const length = BLOCK + prefixLength + body.byteLength;
    if (length > this.scratch.byteLength) this.scratch = this.grown(this.scratch.byteLength, length);
    const scratch = this.scratch;
    for (let i = 0; i < prefixLength; i++) scratch[BLOCK + i] = prefix.charCodeAt(i);
    scratch.set(body, BLOCK + prefixLength);
    if (this.view.byteLength !== length || this.view.buffer !== scratch.buffer) this.view = scratch.subarray(0, length);
    writeDigest(this.outer, BLOCK, this.hash('sha256', this.view, 'latin1'));
    return this.hash('sha256', this.outer, 'latin1');
  }

  /** A larger scratch buffer (doubling, so a growing size is copied rarely) with the inner pad in front. */
  private grown(current: number, needed: number): Uint8Array {
    let size = Math.max(current, 1024);
    while (size < needed) size *= 2;
    const scratch = new Uint8Array(Math.min(size, BLOCK + MAX_PREFIX + TWO_PASS_MAX_BODY_BYTES));
    scratch.set(this.ipad);
    return scratch;
  }
}

/** Writes a latin1 digest string into `bytes` at `offset`, one byte per character. */
export function writeLatin1(bytes: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) bytes[offset + i] = text.charCodeAt(i);
}

type Latin1Write = (this: Uint8Array, text: string, offset: number) => number;
type BufferModule = { Buffer?: { prototype?: { latin1Write?: unknown } } } | undefined;

/**
 * node:buffer's native latin1 writer where it gives the known answer on a plain Uint8Array,
 * else {@link writeLatin1}: for the 32-character inner digest the native call costs about 290
 * fewer instructions per delivery than the JavaScript loop (counted: BENCHMARKS.md). Takes the
 * module, so a test can hand it one without the writer, or with a broken one.
 */
export function latin1Writer(buffer: BufferModule): (bytes: Uint8Array, offset: number, text: string) => void {
  const write = buffer?.Buffer?.prototype?.latin1Write;
  if (typeof write !== 'function') return writeLatin1;
  const native = write as Latin1Write;
  try {
    const probe = new Uint8Array(4);
    native.call(probe, '\u00ff\u0001', 1);
    if (probe.join() !== '0,255,1,0') return writeLatin1;
  } catch {
    return writeLatin1;
  }
  return (bytes, offset, text) => void native.call(bytes, text, offset);
}

/** How the inner digest is written on this runtime (exported for the test that checks which). */
export const writeDigest = latin1Writer(loadBuiltin<BufferModule>('node:buffer'));

/**
 * A latin1 digest string against expected bytes, in time that depends only on their lengths:
 * every position is visited and differences OR-ed together, with no early exit.
 */
function equalLatin1(digest: string, expected: Uint8Array): boolean {
  const length = Math.max(digest.length, expected.length);
  let difference = digest.length ^ expected.length;
  for (let i = 0; i < length; i++) {
    // Past either end charCodeAt gives NaN and the array undefined; `| 0` makes both 0.
    difference |= (digest.charCodeAt(i) | 0) ^ (expected[i]! | 0);
  }
  return difference === 0;
}

// HMAC-SHA256("Jefe", "what do ya want for nothing?"), RFC 4231 section 4.3.
const RFC4231_CASE_2 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

/**
 * The one-shot hash if this runtime has one that gives RFC 4231's known answer through
 * {@link TwoPassHmac}, else undefined. Checked once, not assumed from the name: a runtime
 * whose node:crypto emulation has `hash` but not its `'buffer'` output must not get here.
 */
export function usableOneShotHash(hash: unknown): OneShotHash | undefined {
  if (typeof hash !== 'function') return undefined;
  try {
    const encoder = new TextEncoder();
    const digest = new TwoPassHmac(hash as OneShotHash, encoder.encode('Jefe')).digest(
      'what do ',
      encoder.encode('ya want for nothing?'),
    );
    let hex = '';
    for (let i = 0; i < (digest?.length ?? 0); i++) hex += digest!.charCodeAt(i).toString(16).padStart(2, '0');
    return hex === RFC4231_CASE_2 ? (hash as OneShotHash) : undefined;
  } catch {
    return undefined;
  }
}
