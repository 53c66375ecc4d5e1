/**
 * Which kept token hashes a pass asks the token matcher about, and in what order: each
 * distinct hash once (a thousand requests from one token cost one lookup), the least recently
 * asked first. In tenant mode each ask may be a `tenants` lookup under the receiver's
 * `tenantLookupsPerSecond` cap, which unknown hashes would otherwise use up on every pass in
 * the store's own order: here a pass asks no more than the cap refilled since the last one,
 * so asks are real lookups and every kept hash is asked within
 * ⌈distinct hashes / tenantLookupsPerSecond⌉ seconds of passes (while live traffic leaves the
 * cap alone).
 */
export class KeptLookups {
  private readonly askedAt = new Map<string, number>();
  private asks = 0;
  private allowance: number;
  private filledAt: number;

  /** `perSecond`: the tenant lookup cap; undefined when asking costs no lookup (a token list). */
  constructor(
    private readonly perSecond: number | undefined,
    private readonly now: () => number,
  ) {
    this.allowance = perSecond ?? 0;
    this.filledAt = now();
  }

  /** The hashes this pass asks about, least recently asked first (never asked before any). */
  order(hashes: Iterable<string>): string[] {
    const present = new Set(hashes);
    for (const hash of this.askedAt.keys()) if (!present.has(hash)) this.askedAt.delete(hash);
    const ordered = [...present].sort((a, b) => (this.askedAt.get(a) ?? -1) - (this.askedAt.get(b) ?? -1));
    if (this.perSecond === undefined) return ordered;
    const now = this.now();
    this.allowance = Math.min(
      Math.max(1, this.perSecond),
      this.allowance + ((now - this.filledAt) * this.perSecond) / 1000,
    );
    this.filledAt = now;
    const share = ordered.slice(0, Math.max(0, Math.floor(this.allowance)));
    this.allowance -= share.length;
    return share;
  }

  /** Marks a hash as just asked: it goes to the back of the next pass's order. */
  asked(hash: string): void {
    this.askedAt.set(hash, ++this.asks);
  }
}
