import type { KeptRequestStore } from '../dedup/kept-requests.js';
import type { LedgerEntry, LedgerHour, LedgerPage } from './ledger-row.js';

/**
 * A {@link LedgerQuery} as a {@link LedgerStore} gets it: times in epoch ms, the status as a
 * range, the limit settled (1 to 1000).
 */
export interface LedgerFilter {
  since?: number;
  /** Exclusive. */
  until?: number;
  /** Inclusive bounds of the answered status. */
  statusFrom?: number;
  statusTo?: number;
  event?: string;
  article?: string;
  tenant?: string;
  deliveryId?: string;
  verified?: boolean;
  /** Rows written by `recover()` from this refused row's id. */
  recoveredFrom?: string;
  limit: number;
  /** Rows with an `id` below this one (the page goes on from there, newest first). */
  cursor?: string;
}

/** The bounds {@link LedgerStore.prune} keeps a ledger within. */
export interface LedgerLimits {
  /** Drop rows received before this time, epoch ms. */
  before: number;
  /** Most verified rows kept per tenant (rows without a tenant count as one tenant); the oldest go first. */
  maxRowsPerTenant: number;
  /** Most refused rows (`verified: false`) kept in all: junk cannot push out real rows. */
  maxRefusedRows: number;
}

/**
 * Where a ledger keeps its rows: the part of a ledger a store implements (memory, Postgres,
 * Redis, DynamoDB). `createLedger(store)` builds the {@link Ledger} users hold on top of it,
 * with the batching, the rate limit on refusals and recovery, so a store only stores.
 *
 * Every method may answer synchronously or with a promise. A store's failures reject; the
 * ledger reports them and never lets them reach an answer.
 */
export interface LedgerStore {
  /**
   * Writes rows in one round trip where the store allows. Assigns each its `copy`: 1 + the
   * rows already on record with the same `tenant` and `deliveryId` (earlier rows of the same
   * batch included); 0 when `deliveryId` is null. Counts may be off by the copies written by
   * another instance at the same moment; never below 1.
   */
  append(entries: readonly LedgerEntry[]): void | Promise<void>;
  /** Rows matching the filter, newest first (by `id`, descending), at most `limit`, with `next` when more match. */
  list(filter: LedgerFilter): LedgerPage | Promise<LedgerPage>;
  /**
   * Counts per UTC hour of the rows received in `[since, until)`, oldest hour first, only hours
   * with rows. `tenant` narrows to one tenant.
   */
  summary(range: { since: number; until: number; tenant?: string }): LedgerHour[] | Promise<LedgerHour[]>;
  /** Drops what is outside the limits; resolves to how many rows were dropped. */
  prune(limits: LedgerLimits): number | Promise<number>;
  /**
   * Refused requests kept with `keepRefused` (the raw body and the headers the checks read,
   * the token only as its hash), under the same contract as a rotation window's kept requests:
   * `keep` within count and bytes, `take` hands each to exactly one caller across instances.
   * A kept refusal's `id` is the id of its row.
   */
  readonly refusals: KeptRequestStore;
}
