import type { KeptSummary } from '../../dedup/kept-requests.js';
import { keptIdParts } from './kept-id.js';

interface Entry {
  id: string;
  receivedAt: number;
  delivery: string | undefined;
}

/**
 * This receiver's picture of what the store keeps, grouped by token hash: from the last
 * `list()`, plus what this receiver kept and took since. It decides who gives way when the
 * store is full, and whether a request could win a place at all, without a store call per
 * request. Another instance's changes show up at the next listing.
 *
 * The fair share: requests are grouped by the token they presented. When the store is full,
 * the oldest request of the largest group gives way (between groups of that size, the one
 * whose oldest is oldest); a request whose own group is already that large is refused. So
 * 1,000 requests from random tokens, or 1,000 from one reused token, cannot keep out a
 * delivery signed by a token none of them holds.
 */
export class KeptCensus {
  private readonly groups = new Map<string, Entry[]>();
  private size = 0;
  /** The store refused the last keep (count or bytes): full until something leaves it. */
  private refused = false;
  listedAt = Number.NEGATIVE_INFINITY;

  /** How many requests are kept, as far as this receiver knows. */
  get count(): number {
    return this.size;
  }

  /** Replaces the picture with a fresh listing of the store. */
  replace(listed: readonly KeptSummary[], now: number): void {
    this.groups.clear();
    this.size = 0;
    for (const { id, tokenSha256 } of listed) this.add(id, tokenSha256);
    this.listedAt = now;
  }

  add(id: string, tokenSha256: string): void {
    const group = this.groups.get(tokenSha256);
    const entry = { id, ...keptIdParts(id) };
    if (group) group.push(entry);
    else this.groups.set(tokenSha256, [entry]);
    this.size++;
  }

  remove(id: string, tokenSha256: string): void {
    const group = this.groups.get(tokenSha256);
    const at = group?.findIndex((entry) => entry.id === id) ?? -1;
    if (at < 0) return;
    group!.splice(at, 1);
    if (group!.length === 0) this.groups.delete(tokenSha256);
    this.size--;
    this.refused = false;
  }

  /** What the store said to the last keep: false sets the full mark. */
  kept(accepted: boolean): void {
    this.refused = !accepted;
  }

  /** Whether the store is full: by count against `maxCount`, or its last keep was refused (bytes). */
  full(maxCount: number): boolean {
    return this.refused || this.size >= maxCount;
  }

  /** The ids kept for this delivery from this token: a retry replaces them. */
  copiesOf(tokenSha256: string, delivery: string): string[] {
    return (this.groups.get(tokenSha256) ?? []).filter((entry) => entry.delivery === delivery).map(({ id }) => id);
  }

  /** The ids kept from this token hash, oldest first. */
  idsOf(tokenSha256: string): string[] {
    const group = [...(this.groups.get(tokenSha256) ?? [])];
    return group.sort((a, b) => a.receivedAt - b.receivedAt).map(({ id }) => id);
  }

  /** The distinct token hashes kept. */
  hashes(): string[] {
    return [...this.groups.keys()];
  }

  /** Whether a request presenting this token hash could take a place in a full store. */
  wins(tokenSha256: string): boolean {
    return this.victimFor(tokenSha256) !== undefined;
  }

  /**
   * The request that gives way to one presenting this token hash in a full store: the oldest
   * of the largest group, unless the newcomer's own group is already that large (undefined).
   */
  victimFor(tokenSha256: string): { id: string; tokenSha256: string } | undefined {
    const own = this.groups.get(tokenSha256)?.length ?? 0;
    let victim: { id: string; tokenSha256: string; size: number; receivedAt: number } | undefined;
    for (const [hash, group] of this.groups) {
      if (group.length <= own) continue;
      const oldest = oldestOf(group);
      if (
        !victim ||
        group.length > victim.size ||
        (group.length === victim.size && oldest.receivedAt < victim.receivedAt)
      ) {
        victim = { id: oldest.id, tokenSha256: hash, size: group.length, receivedAt: oldest.receivedAt };
      }
    }
    if (!victim) return undefined;
    // Only the largest group gives way: a smaller one than the newcomer's never does.
    return { id: victim.id, tokenSha256: victim.tokenSha256 };
  }
}

function oldestOf(group: readonly Entry[]): Entry {
  let oldest = group[0]!;
  for (const entry of group) if (entry.receivedAt < oldest.receivedAt) oldest = entry;
  return oldest;
}
