import { STALE_ANSWER } from 'webhook-cms-receiver';

/**
 * Pieces the statements share. Every time is `now()`, the database's clock: the hosts'
 * clocks never enter, so hosts that disagree about the time still agree about leases.
 */

/** A duration parameter in milliseconds, as an interval. */
export const ms = (param: string): string => `(${param}::float8 * interval '1 millisecond')`;

/** The answer a stale delivery is recorded with, as a jsonb literal. */
export const STALE_JSONB = `'${JSON.stringify(STALE_ANSWER)}'::jsonb`;

/**
 * The upsert's conflict clause for a claim: an expired row (a lapsed claim or a forgotten
 * delivery) is taken over with the new values; a live one is written back unchanged, so that
 * RETURNING shows it as it is now, even when another transaction committed it after this
 * statement began (which a plain SELECT in the same statement would not see).
 */
const TAKE_OVER_EXPIRED = `ON CONFLICT (id) DO UPDATE SET
    lease = CASE WHEN d.expires_at <= now() THEN excluded.lease ELSE d.lease END,
    answer = CASE WHEN d.expires_at <= now() THEN excluded.answer ELSE d.answer END,
    expires_at = CASE WHEN d.expires_at <= now() THEN excluded.expires_at ELSE d.expires_at END`;

/**
 * The claim's upsert: inserts the delivery's row from `source` (id, lease, answer, expiry) or
 * takes over an expired one, and returns the row as it stands (`lease`, `answer` as text).
 */
export const claimUpsert = (deliveries: string, source: string, extra = ''): string =>
  `INSERT INTO ${deliveries} AS d (id, lease, answer, expires_at)
  ${source}
  ${TAKE_OVER_EXPIRED}
  RETURNING ${extra}d.lease, d.answer::text AS answer`;

/** {@link claimUpsert} as the `claimed` CTE, for the claim statements that do more than the upsert. */
export const claimedCte = (deliveries: string, source: string): string => `claimed AS (
  ${claimUpsert(deliveries, source)}
)`;

/** The conflict clause for renew and complete: write only while this lease holds the row, or nobody does. */
export const WHILE_HELD_OR_FREE = `ON CONFLICT (id) DO UPDATE SET
    lease = excluded.lease, answer = excluded.answer, expires_at = excluded.expires_at
  WHERE (d.lease = excluded.lease AND d.answer IS NULL) OR d.expires_at <= now()`;
