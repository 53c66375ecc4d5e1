import type { MatchedToken } from '../tokens/token-matcher.js';
import type { TokenKey } from '../tokens/token.js';

/** A found tenant's prepared tokens, kept by the hash that found it. */
export interface TenantEntry {
  /** When it is looked up again (it is still used, stale, until that answer comes). */
  expiresAt: number;
  keys: readonly TokenKey[];
  matches: readonly MatchedToken[];
}

/** Unknown hashes are kept this long: a regenerated token is found within a second. */
export const UNKNOWN_MS = 1000;
/** Past this many found hashes, the least recently found are dropped (a platform's whole site list fits). */
const MAX_KNOWN = 100_000;
/** Past this many unknown hashes, expired ones are swept; they arrive at most at the lookup cap. */
const MAX_UNKNOWN = 10_000;

/**
 * Tenant mode's cache, in two maps so that a flood of unknown tokens can never push a real
 * site's entry out: found tenants by hash (kept, stale, until looked up again), and unknown
 * hashes for {@link UNKNOWN_MS}.
 */
export class HashCache {
  private readonly found = new Map<string, TenantEntry>();
  private readonly unknown = new Map<string, number>();

  known(hash: string): TenantEntry | undefined {
    return this.found.get(hash);
  }

  isUnknown(hash: string, now: number): boolean {
    const until = this.unknown.get(hash);
    if (until === undefined) return false;
    if (until > now) return true;
    this.unknown.delete(hash);
    return false;
  }

  remember(hash: string, entry: TenantEntry): void {
    this.unknown.delete(hash);
    this.found.delete(hash);
    this.found.set(hash, entry);
    if (this.found.size > MAX_KNOWN) this.found.delete(this.found.keys().next().value!);
  }

  /** A hash the resolver does not know (any more): a token removed from its tenant stops here. */
  forget(hash: string, now: number): void {
    this.found.delete(hash);
    this.unknown.set(hash, now + UNKNOWN_MS);
    if (this.unknown.size <= MAX_UNKNOWN) return;
    for (const [key, until] of this.unknown) if (until <= now) this.unknown.delete(key);
    for (const key of this.unknown.keys()) {
      if (this.unknown.size <= MAX_UNKNOWN) break;
      this.unknown.delete(key);
    }
  }
}
