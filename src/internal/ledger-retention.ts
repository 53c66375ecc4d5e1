import { positiveOption } from './positive.js';

// Under an hour a ledger would drop rows before anyone looked at them: such a value is
// almost surely seconds given as milliseconds (30 days in seconds reads as 43 minutes).
const MIN_RETENTION_MS = 3_600_000;

/**
 * Reads a ledger's `retentionMs`: positive, and at least an hour, so a value in seconds by
 * mistake throws at start instead of silently pruning every row within minutes.
 */
export function ledgerRetention(value: number | undefined, fallback: number, label: string): number {
  const ms = positiveOption(value, fallback, label);
  if (ms < MIN_RETENTION_MS) {
    throw new RangeError(
      `${label} is ${ms} ms (${(ms / 60_000).toFixed(1)} min): rows would be dropped that soon. It is in ` +
        `milliseconds, not seconds: 30 days is ${30 * 86_400_000} (the default). The least it takes is an hour.`,
    );
  }
  return ms;
}
