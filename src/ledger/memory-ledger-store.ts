import { memoryKeptRequests } from '../dedup/kept-requests.js';
import type { LedgerHour, LedgerRow } from './ledger-row.js';
import type { LedgerFilter, LedgerStore } from './ledger-store.js';
import { emptyHour, hourOf, ledgerOutcome } from './outcome-class.js';
import { matchesLedgerFilter } from './row-filter.js';

/**
 * A {@link LedgerStore} in this process's memory: for tests, development and a single
 * instance that can lose its history on restart. Rows stay ordered by id; `prune` (which the
 * ledger calls every minute and after bursts) keeps them within the limits.
 *
 * @example
 * ```ts
 * const ledger = createLedger(memoryLedgerStore(), { retentionMs: 86_400_000 });
 * ```
 */
export function memoryLedgerStore(options: { now?: () => number } = {}): LedgerStore {
  const rows: LedgerRow[] = [];
  // Copies on record per tenant and delivery id: the next row's `copy` without a scan.
  const copies = new Map<string, number>();
  const copyKey = (row: { tenant: string | null; deliveryId: string | null }) =>
    `${row.tenant ?? ''}\u0000${row.deliveryId}`;

  const forget = (removed: readonly LedgerRow[]) => {
    for (const row of removed) {
      if (row.deliveryId === null) continue;
      const key = copyKey(row);
      const left = (copies.get(key) ?? 1) - 1;
      if (left > 0) copies.set(key, left);
      else copies.delete(key);
    }
  };

  return {
    append(entries) {
      for (const entry of entries) {
        let copy = 0;
        if (entry.deliveryId !== null) {
          const key = copyKey(entry);
          copy = (copies.get(key) ?? 0) + 1;
          copies.set(key, copy);
        }
        // Not `{ ...entry, copy }`: V8 adds `copy` to that clone by its slow path, a new hidden
        // class per row (12,900 instructions a row against 4,300 here, callgrind, issue 48).
        const row: LedgerRow = Object.assign({}, entry, { copy });
        // Rows arrive in id order but for a batch from another moment: insert in place then.
        let at = rows.length;
        while (at > 0 && rows[at - 1]!.id > row.id) at--;
        rows.splice(at, 0, row);
      }
    },
    list(filter: LedgerFilter) {
      const found: LedgerRow[] = [];
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (filter.cursor !== undefined && row.id >= filter.cursor) continue;
        if (!matchesLedgerFilter(row, filter)) continue;
        if (found.length === filter.limit) return { rows: found, next: found[found.length - 1]!.id };
        found.push({ ...row });
      }
      return { rows: found };
    },
    summary({ since, until, tenant }) {
      const hours = new Map<number, LedgerHour>();
      for (const row of rows) {
        if (row.receivedAt < since || row.receivedAt >= until) continue;
        if (tenant !== undefined && row.tenant !== tenant) continue;
        const hour = hourOf(row.receivedAt);
        let counts = hours.get(hour);
        if (!counts) hours.set(hour, (counts = emptyHour(hour)));
        counts[ledgerOutcome(row.status)]++;
      }
      return [...hours.values()].sort((a, b) => a.hour - b.hour);
    },
    prune({ before, maxRowsPerTenant, maxRefusedRows }) {
      // Newest first: each tenant's (and the refusals') newest rows are the ones kept.
      const perTenant = new Map<string | null, number>();
      let refused = 0;
      const kept: LedgerRow[] = [];
      const removed: LedgerRow[] = [];
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        let keep = row.receivedAt >= before;
        if (keep && !row.verified) keep = ++refused <= maxRefusedRows;
        else if (keep) {
          const count = (perTenant.get(row.tenant) ?? 0) + 1;
          perTenant.set(row.tenant, count);
          keep = count <= maxRowsPerTenant;
        }
        (keep ? kept : removed).push(row);
      }
      if (removed.length === 0) return 0;
      rows.length = 0;
      for (let i = kept.length - 1; i >= 0; i--) rows.push(kept[i]!);
      forget(removed);
      return removed.length;
    },
    refusals: memoryKeptRequests(options.now),
  };
}
