/** At most this many bodies are read for keeping at once; past it, 503 with no read (the service retries). */
export const MAX_KEEPING_READS = 4;
/**
 * A read that never reached `keep` (the client went away, the body was over the limit) gives
 * its place back after this long.
 */
export const KEEPING_READ_MS = 10_000;

/**
 * The places for bodies being read to be kept. A place is taken on a request's head and given
 * back once the request is kept or refused (or after {@link KEEPING_READ_MS}), so a flood of
 * large bodies costs at most {@link MAX_KEEPING_READS} bodies in memory at a time.
 */
export class KeepingReads {
  private readonly reads = new WeakMap<object, number>();
  private readonly takenAt: number[] = [];

  constructor(private readonly now: () => number) {}

  /** Takes a place for the request whose headers are these; false when none is free. */
  take(headers: object): boolean {
    const now = this.now();
    // Places whose read never came back are free again.
    while (this.takenAt.length > 0 && now - this.takenAt[0]! >= KEEPING_READ_MS) this.takenAt.shift();
    if (this.takenAt.length >= MAX_KEEPING_READS) return false;
    this.takenAt.push(now);
    this.reads.set(headers, now);
    return true;
  }

  /** Gives back the place of the request whose headers are these; false when it took none. */
  release(headers: unknown): boolean {
    if (typeof headers !== 'object' || headers === null) return false;
    const at = this.reads.get(headers);
    if (at === undefined) return false;
    this.reads.delete(headers);
    const index = this.takenAt.indexOf(at);
    if (index >= 0) this.takenAt.splice(index, 1);
    return true;
  }
}
