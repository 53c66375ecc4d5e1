import type { LedgerHour } from './ledger-row.js';

/** Which count of a {@link LedgerHour} an answered status adds to. */
export type LedgerOutcome = Exclude<keyof LedgerHour, 'hour'>;

/**
 * Which outcome an answered status counts as: 2xx delivered, 401/403 refused (what `recover()`
 * and `resend()` are about), other 4xx rejected, else failed.
 *
 * @example
 * ```ts
 * ledgerOutcome(401); // 'refused'
 * ```
 */
export function ledgerOutcome(status: number): LedgerOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 401 || status === 403) return 'refused';
  if (status >= 400 && status < 500) return 'rejected';
  return 'failed';
}

const HOUR_MS = 3_600_000;

/** The start of the UTC hour holding `time`. */
export function hourOf(time: number): number {
  return Math.floor(time / HOUR_MS) * HOUR_MS;
}

/** An hour with nothing counted yet. */
export function emptyHour(hour: number): LedgerHour {
  return { hour, delivered: 0, refused: 0, rejected: 0, failed: 0 };
}
