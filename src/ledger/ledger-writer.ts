import { describeThrown } from '../internal/describe.js';
import type { LedgerEntry } from './ledger-row.js';
import type { LedgerLimits, LedgerStore } from './ledger-store.js';

/** Rows buffered at most while the store is slow or down; beyond, new rows are counted, not kept. */
const MAX_BUFFERED = 10_000;
/** Rows per write: one round trip each. */
const MAX_BATCH = 500;
/** Every this often the ledger is pruned, and after this many rows since the last prune. */
const PRUNE_MS = 60_000;
const PRUNE_ROWS = 5_000;
/** Between a failed write and the next, doubling up to the most. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** One `warn` line per kind of fault per minute, with a count. */
const NOTICE_MS = 60_000;

/** What a {@link LedgerWriter} is built from. */
export interface LedgerWriterOptions {
  store: LedgerStore;
  flushMs: number;
  refusalsPerMinute: number;
  limits: () => LedgerLimits;
  now: () => number;
}

/**
 * Buffers rows and writes them in batches, one write at a time, so recording costs an answer
 * nothing: a row is pushed, the write happens later. A failed write is retried with backoff
 * while the buffer has room; what does not fit is counted in a `warn` line, never thrown.
 */
export class LedgerWriter {
  private buffer: LedgerEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  private retryMs = 0;
  private sincePrune = 0;
  private prunedAt: number;
  // Refusal rate limit: a bucket of `refusalsPerMinute`, refilled continuously.
  private allowance: number;
  private filledAt: number;
  private readonly counts = { unrecorded: 0, dropped: 0, failed: 0 };
  private toldAt = -Infinity;
  private lastFault = '';
  report: (message: string) => void = (message) => console.warn(`webhook-cms-receiver ledger: ${message}`);

  constructor(private readonly options: LedgerWriterOptions) {
    this.allowance = options.refusalsPerMinute;
    this.filledAt = options.now();
    this.prunedAt = options.now();
  }

  push(entry: LedgerEntry): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.counts.dropped++;
      this.tell();
      return;
    }
    this.buffer.push(entry);
    this.schedule(this.buffer.length >= MAX_BATCH ? 0 : this.options.flushMs);
  }

  /** One place of the refusal rate limit, if any is left. */
  takeRefusal(): boolean {
    const now = this.options.now();
    const rate = this.options.refusalsPerMinute;
    this.allowance = Math.min(rate, this.allowance + ((now - this.filledAt) * rate) / 60_000);
    this.filledAt = now;
    if (this.allowance >= 1) {
      this.allowance--;
      return true;
    }
    this.counts.unrecorded++;
    this.tell();
    return false;
  }

  /** Writes everything buffered now; resolves once written or reported. */
  async flush(): Promise<void> {
    this.clearTimer();
    for (let rounds = 0; rounds < 1000; rounds++) {
      if (this.writing) await this.writing;
      else if (this.buffer.length > 0) await this.write();
      else return;
      // A failed write keeps its rows: one flush tries once, the timer retries later.
      if (this.retryMs > 0) return;
    }
  }

  private schedule(delay: number): void {
    if (this.timer !== undefined || this.writing) return;
    try {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.write();
      }, delay);
      (this.timer as { unref?: () => void }).unref?.();
    } catch {
      // A host that allows no timer here (a Worker's global scope): write now.
      void this.write();
    }
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private write(): Promise<void> {
    if (this.writing) return this.writing;
    const batch = this.buffer.splice(0, MAX_BATCH);
    if (batch.length === 0) return Promise.resolve();
    const { store } = this.options;
    this.writing = new Promise<void>((resolve) => resolve(store.append(batch)))
      .then(
        () => {
          this.retryMs = 0;
          this.sincePrune += batch.length;
          return this.pruneIfDue();
        },
        (cause: unknown) => {
          // Back at the front, so rows stay in order, as long as the buffer has room.
          const room = Math.max(0, MAX_BUFFERED - this.buffer.length);
          this.buffer.unshift(...batch.slice(batch.length - room));
          this.counts.dropped += Math.max(0, batch.length - room);
          this.counts.failed += batch.length;
          this.lastFault = describeThrown(cause);
          this.retryMs = Math.min(MAX_RETRY_MS, Math.max(RETRY_MS, this.retryMs * 2));
          this.tell();
        },
      )
      .finally(() => {
        this.writing = undefined;
        if (this.buffer.length > 0) this.schedule(this.retryMs || this.options.flushMs);
      });
    return this.writing;
  }

  private async pruneIfDue(): Promise<void> {
    const now = this.options.now();
    if (this.sincePrune < PRUNE_ROWS && now - this.prunedAt < PRUNE_MS) return;
    this.sincePrune = 0;
    this.prunedAt = now;
    try {
      await this.options.store.prune(this.options.limits());
    } catch (cause) {
      this.lastFault = describeThrown(cause);
      this.report(`the ledger could not be pruned: ${this.lastFault}`);
    }
  }

  /** At most one line a minute, with what happened since the last. */
  private tell(): void {
    const now = this.options.now();
    if (now - this.toldAt < NOTICE_MS) return;
    this.toldAt = now;
    const { unrecorded, dropped, failed } = this.counts;
    const parts: string[] = [];
    if (failed > 0) parts.push(`${failed} row write(s) failed (${this.lastFault}); retrying`);
    if (dropped > 0) parts.push(`${dropped} row(s) were not recorded: the buffer of ${MAX_BUFFERED} was full`);
    if (unrecorded > 0) parts.push(`${unrecorded} refused request(s) were not recorded: over refusalsPerMinute`);
    this.counts.unrecorded = this.counts.dropped = this.counts.failed = 0;
    if (parts.length > 0) this.report(parts.join('; '));
  }
}
