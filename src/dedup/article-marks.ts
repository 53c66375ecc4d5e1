import { OldestFirstMap } from './oldest-first-map.js';
import type { ArticleOrder } from './store.js';

/** One article's ordering state: the newest applied timestamp, and who runs a delivery for it now. */
interface Mark {
  /** Newest envelope timestamp whose handler succeeded; -Infinity before any. */
  newest: number;
  /** The lease of the delivery running for this article, 0 when none. */
  holder: number;
  holderExpiresAt: number;
  /** When the mark itself is forgotten: the retention period after it last moved. */
  expiresAt: number;
}

/** What {@link ArticleMarks.enter} decided. */
export type Entry = { state: 'enter' } | { state: 'busy' } | { state: 'stale'; newerTimestamp: number };

/**
 * The memory store's ordering state, per article: the newest applied timestamp (trash
 * included, as a tombstone) and the one delivery allowed to run for the article at a time.
 */
export class ArticleMarks {
  private readonly marks = new OldestFirstMap<Mark>();

  constructor(private readonly limits: { retentionMs: number; maxEntries: number }) {}

  /** How many articles are remembered: at most `maxEntries`, plus briefly the holds that may not be dropped. */
  get size(): number {
    return this.marks.size;
  }

  /** Lets a delivery in, or says why not: another runs for the article, or a newer one was applied. */
  enter(order: ArticleOrder, hold: { lease: number; until: number; at: number }): Entry {
    const mark = this.live(order.articleId, hold.at);
    if (mark && order.timestamp < mark.newest) return { state: 'stale', newerTimestamp: mark.newest };
    if (mark && mark.holder !== 0 && mark.holderExpiresAt > hold.at) return { state: 'busy' };
    if (mark) {
      mark.holder = hold.lease;
      mark.holderExpiresAt = hold.until;
      mark.expiresAt = Math.max(mark.expiresAt, hold.until);
    } else {
      const fresh = {
        newest: Number.NEGATIVE_INFINITY,
        holder: hold.lease,
        holderExpiresAt: hold.until,
        expiresAt: hold.until,
      };
      this.add(order.articleId, fresh, hold.at);
    }
    return { state: 'enter' };
  }

  /** Extends the hold while the handler runs; false when another delivery holds the article now. */
  renew(order: ArticleOrder, hold: { lease: number; until: number; at: number }): boolean {
    const mark = this.live(order.articleId, hold.at);
    if (mark && mark.holder !== hold.lease && mark.holder !== 0 && mark.holderExpiresAt > hold.at) return false;
    if (!mark) return this.enter({ ...order, timestamp: Number.POSITIVE_INFINITY }, hold).state === 'enter';
    mark.holder = hold.lease;
    mark.holderExpiresAt = hold.until;
    mark.expiresAt = Math.max(mark.expiresAt, hold.until);
    return true;
  }

  /** The handler succeeded: raise the article's mark and let the next delivery in. */
  applied(order: ArticleOrder, lease: number, at: number): void {
    const mark = this.live(order.articleId, at) ?? {
      newest: Number.NEGATIVE_INFINITY,
      holder: 0,
      holderExpiresAt: 0,
      expiresAt: 0,
    };
    mark.newest = Math.max(mark.newest, order.timestamp);
    if (mark.holder === lease) mark.holder = 0;
    mark.expiresAt = at + this.limits.retentionMs;
    // Re-added so that the map's order stays the order of expiry.
    this.marks.delete(order.articleId);
    this.add(order.articleId, mark, at);
  }

  /** The handler failed: let the retry (or the next delivery) in, leaving the mark as it was. */
  leave(order: ArticleOrder, lease: number): void {
    const mark = this.marks.get(order.articleId);
    if (mark?.holder === lease) mark.holder = 0;
  }

  private live(articleId: string, at: number): Mark | undefined {
    const mark = this.marks.get(articleId);
    if (mark && mark.expiresAt <= at) {
      this.marks.delete(articleId);
      return undefined;
    }
    return mark;
  }

  private add(articleId: string, mark: Mark, at: number): void {
    this.marks.set(articleId, mark);
    for (let i = 0; i < 8; i++) {
      const oldest = this.marks.oldestKey();
      if (oldest === undefined) return;
      const value = this.marks.oldestValue!;
      if (value.expiresAt > at && this.marks.size <= this.limits.maxEntries) return;
      this.marks.delete(oldest);
      // A running delivery's hold is never dropped, as the ids map never drops a running claim.
      if (value.holder !== 0 && value.holderExpiresAt > at) this.marks.set(oldest, value);
    }
  }
}
