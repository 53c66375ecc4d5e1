import type { LedgerHour, LedgerPage, LedgerQuery } from './ledger-row.js';

/** What {@link Ledger.summary} covers. */
export interface LedgerSummaryQuery {
  /** From this time (default: 24 hours ago). */
  since?: number | Date;
  /** Until this time (default: now). */
  until?: number | Date;
  tenant?: string;
}

/** What {@link Ledger.recover} processes. */
export interface RecoverOptions {
  /** Only refusals received at or after this time (default: every kept refusal). */
  since?: number | Date;
}

/** What one {@link Ledger.recover} call did. */
export interface RecoverReport {
  /** Kept refusals that verified with a current token and were processed (answered 2xx). */
  recovered: number;
  /**
   * Kept refusals that verified but whose processing failed (a 5xx): kept again for the next
   * `recover()`.
   */
  failed: number;
  /** Kept refusals no current token verifies: still kept, and listed by `resend()`. */
  unverified: number;
}

/**
 * A delivery to re-send from the service's dashboard: refused, and not delivered since. Its
 * fields are what the refused request claimed (unverified): render them as text.
 */
export interface ResendItem {
  /** The article's id as claimed; null when the refusal came before its body was read. */
  articleId: string | null;
  /** The delivery id as claimed (the dashboard lists deliveries by it), or null. */
  deliveryId: string | null;
  slug: string | null;
  event: string | null;
  /** The last refusal's time, epoch ms. */
  refusedAt: number;
  /** Its status (401 or 403) and code. */
  status: number;
  code: string;
  /** How many refused requests claimed this article (or delivery) since `since`. */
  refusals: number;
  /** Whether a body is kept for `recover()`. */
  kept: boolean;
}

/**
 * The delivery ledger: every request a receiver got, what it answered, and (with
 * `keepRefused`) the refused deliveries kept to be recovered once the token is fixed. Give it to
 * `createReceiver({ ledger })`; read it from a page (`ledgerPage`), the CLI
 * (`npx webhook-cms-receiver ledger`) or your own code.
 *
 * @example
 * ```ts
 * const ledger = postgresLedger(pool, { keepRefused: true });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * // The morning after: what was refused, and recover it now that the token is fixed.
 * const { rows } = await ledger.list({ status: 401, since: Date.now() - 86_400_000 });
 * const { recovered, unverified } = await ledger.recover();
 * ```
 */
export interface Ledger {
  /** Rows matching the query, newest first. */
  list(query?: LedgerQuery): Promise<LedgerPage>;
  /** Counts per outcome per hour. */
  summary(query?: LedgerSummaryQuery): Promise<LedgerHour[]>;
  /**
   * Verifies each kept refusal with the receiver's current tokens, judging its timestamp
   * against the time it was received, and processes each that verifies once, as if it had
   * just arrived (dedup, ordering, handlers or queue mode). Needs the ledger to be given to a
   * receiver (`createReceiver({ ledger })`) that has handlers: its `handlers` option, those of
   * the last delivery it handled, or queue mode (which enqueues).
   */
  recover(options?: RecoverOptions): Promise<RecoverReport>;
  /** The articles refused since `since` (default: the retention) and not delivered since. */
  resend(query?: { since?: number | Date; tenant?: string }): Promise<ResendItem[]>;
  /** Writes the rows still buffered; resolves once written (or reported as failed). */
  flush(): Promise<void>;
  /** Whether refused 401 and 403 requests are kept for {@link recover}. */
  readonly keepRefused: boolean;
}
