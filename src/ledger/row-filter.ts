import type { LedgerRow } from './ledger-row.js';
import type { LedgerFilter } from './ledger-store.js';

/**
 * Whether a row passes a filter (all but `limit` and `cursor`): what a store that cannot
 * filter in its query language (memory, or the refinement after a Redis index read) applies.
 *
 * @example
 * ```ts
 * const rows = all.filter((row) => matchesLedgerFilter(row, filter)).slice(0, filter.limit);
 * ```
 */
export function matchesLedgerFilter(row: LedgerRow, filter: LedgerFilter): boolean {
  if (filter.since !== undefined && row.receivedAt < filter.since) return false;
  if (filter.until !== undefined && row.receivedAt >= filter.until) return false;
  if (filter.statusFrom !== undefined && row.status < filter.statusFrom) return false;
  if (filter.statusTo !== undefined && row.status > filter.statusTo) return false;
  if (filter.event !== undefined && row.event !== filter.event) return false;
  if (filter.article !== undefined && row.articleId !== filter.article) return false;
  if (filter.tenant !== undefined && row.tenant !== filter.tenant) return false;
  if (filter.deliveryId !== undefined && row.deliveryId !== filter.deliveryId) return false;
  if (filter.verified !== undefined && row.verified !== filter.verified) return false;
  if (filter.recoveredFrom !== undefined && row.recoveredFrom !== filter.recoveredFrom) return false;
  return true;
}
