/** The most one line about requests the window could not keep is logged: once a minute. */
export const NOTICE_MS = 60_000;

/**
 * The line about requests the rotation window did not keep, or kept at another's expense:
 * counted, and told at most once a minute with the counts, so a flood of thousands of
 * requests is a handful of lines, not one each.
 */
export class KeptNotice {
  private refused = 0;
  private evicted = 0;
  private unread = 0;
  private toldAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly report: (message: string) => void,
  ) {}

  /** A request answered 503 and not kept: the store is full and its token already has its share. */
  notKept(): void {
    this.refused++;
    this.tell();
  }

  /** A kept request dropped to make room for one from a token with fewer kept. */
  gaveWay(): void {
    this.evicted++;
    this.tell();
  }

  /** A request answered 503 on its head, its body not read: as many bodies were being read for keeping as may be. */
  notRead(): void {
    this.unread++;
    this.tell();
  }

  /** Tells what was counted, unless a line went out less than a minute ago (then on a later call). */
  tell(): void {
    if (this.refused === 0 && this.evicted === 0 && this.unread === 0) return;
    const now = this.now();
    if (now - this.toldAt < NOTICE_MS) return;
    this.toldAt = now;
    const parts: string[] = [];
    if (this.refused > 0) {
      parts.push(
        `${this.refused} request(s) answered 503 without being kept (maxKeptRequests or maxKeptBytes reached, ` +
          'and their token already had its share)',
      );
    }
    if (this.evicted > 0) {
      parts.push(`${this.evicted} kept request(s) gave way to requests from tokens with fewer kept`);
    }
    if (this.unread > 0) {
      parts.push(
        `${this.unread} request(s) answered 503 without reading their body (too many bodies being read to keep)`,
      );
    }
    this.refused = 0;
    this.evicted = 0;
    this.unread = 0;
    this.report(`the rotation window keeps no more requests: ${parts.join('; ')} since the last line`);
  }
}
