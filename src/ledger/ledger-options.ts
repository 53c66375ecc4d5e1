/** Thirty days: how long a ledger keeps rows by default. */
export const DEFAULT_LEDGER_RETENTION_MS = 30 * 24 * 3_600_000;
/** The default of `maxRowsPerTenant`. */
export const DEFAULT_LEDGER_MAX_ROWS = 100_000;
/** The default of `maxRefusedRows`. */
export const DEFAULT_LEDGER_MAX_REFUSED_ROWS = 10_000;
/** The default of `refusalsPerMinute`. */
export const DEFAULT_LEDGER_REFUSALS_PER_MINUTE = 120;

/** Options of every ledger (`memoryLedger`, `postgresLedger`, `redisLedger`, `dynamoDbLedger`). */
export interface LedgerOptions {
  /**
   * Keep the raw body and the headers the checks read of each 401 and 403 refusal (the token
   * only as its SHA-256), so `recover()` can process them once the token is fixed. Off by
   * default: with it, the ledger holds bodies (article content), not only metadata, and
   * requests with an unknown token have their bodies read (at most 4 at once, within
   * `maxKeptRefusalBytes`).
   */
  keepRefused?: boolean;
  /** Most refusals kept at once with `keepRefused` (default 1000). */
  maxKeptRefusals?: number;
  /** Most bytes kept at once with `keepRefused` (default 64 MiB). */
  maxKeptRefusalBytes?: number;
  /** How long rows (and kept refusals) are kept, in ms (default 30 days, at least an hour: a value in seconds throws). */
  retentionMs?: number;
  /** Most verified rows kept per tenant (default 100,000); the oldest go first. */
  maxRowsPerTenant?: number;
  /** Most refused rows kept in all (default 10,000), so junk cannot push out real rows. */
  maxRefusedRows?: number;
  /**
   * Most refused requests recorded per minute by one process (default 120); beyond it they
   * are counted in a `warn` line, not recorded, so a flood of junk costs no writes.
   */
  refusalsPerMinute?: number;
  /** How long rows wait to be written in one batch, in ms (default 100). */
  flushMs?: number;
  /** The clock, epoch ms (default `Date.now`); tests move it. */
  now?: () => number;
}
