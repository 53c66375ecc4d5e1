import { claimRows } from './claim-rows.js';
import { claimedCte, ms, STALE_JSONB } from './sql-parts.js';
import type { Tables } from './table-sql.js';

/**
 * Transactional mode's statements, run inside the delivery's transaction. The claim's row
 * (and, with ordering, the article's row) stays locked by the open transaction until it
 * commits or rolls back, so no lease is needed: a killed process's connection closes and
 * Postgres rolls everything back.
 */
export interface TransactionStatements {
  /** $1 id, $2 lease, $3 lease ms, $4 lock wait (`lock_timeout` text). */
  claim: string;
  /** $1 id, $2 lease, $3 lease ms, $4 lock wait, $5 article id, $6 envelope timestamp, $7 retention ms. */
  claimOrdered: string;
  /** $1 id, $2 lease, $3 answer JSON, $4 retention ms. One row when recorded. */
  record: string;
  /** $1 id, $2 lease, $3 answer JSON, $4 retention ms, $5 article id, $6 envelope timestamp. */
  recordOrdered: string;
}

/**
 * `lock_timeout` bounds how long the claim waits for a copy in flight (its uncommitted row):
 * past it the claim fails with 55P03 and answers in-progress. It is set for this statement
 * only, from a CTE the upsert reads first, and put back in the final SELECT, which runs once
 * the locks are taken: the handler's own statements keep the user's `lock_timeout`. One
 * statement, where SET LOCAL before and after would cost two more round trips.
 */
const WAIT = `wait AS MATERIALIZED (
  SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', $4::text, true) AS applied
)`;
const RESTORE = `set_config('lock_timeout', (SELECT previous FROM wait), true)`;

/** Builds transactional mode's statements for the tables. */
export function transactionStatements(t: Tables): TransactionStatements {
  const D = t.deliveries;
  const A = t.articles;
  const claimUpsert = (source: string) => claimedCte(D, source);
  const record = `UPDATE ${D} SET answer = $3::text::jsonb, expires_at = now() + ${ms('$4')}
  WHERE id = $1::text AND lease = $2::text RETURNING 1 AS recorded`;

  return {
    claim: `WITH ${WAIT}, ${claimUpsert(`SELECT $1::text, $2::text, NULL::jsonb, now() + ${ms('$3')} FROM wait`)}
SELECT 'claimed' AS source, lease, answer, ${RESTORE} AS restored FROM claimed`,

    // The article's row is locked by the transaction: that lock is the per-article mutual
    // exclusion, and a second delivery for the article waits on it, then answers
    // in-progress. A done delivery seen in the snapshot skips it, so a duplicate answers
    // `done` at once. A plain-mode store's live hold on the article also counts.
    claimOrdered: `WITH ${WAIT}, known AS (
  SELECT lease, answer::text AS answer FROM ${D} WHERE id = $1::text AND expires_at > now() AND answer IS NOT NULL
), article AS (
  INSERT INTO ${A} AS a (article_id, newest, holder, holder_expires_at, expires_at)
  SELECT $5::text, NULL, NULL, NULL, now() + ${ms('$3')} FROM wait WHERE NOT EXISTS (SELECT 1 FROM known)
  ON CONFLICT (article_id) DO UPDATE SET
    newest = CASE WHEN a.expires_at > now() THEN a.newest END,
    expires_at = greatest(a.expires_at, excluded.expires_at)
  RETURNING a.newest, NOT (a.holder IS NOT NULL AND a.holder_expires_at > now()) AS entered
), ${claimUpsert(`SELECT $1::text, $2::text, CASE WHEN stale THEN ${STALE_JSONB} END,
    now() + ${ms('CASE WHEN stale THEN $7::float8 ELSE $3::float8 END')}
  FROM (SELECT newest IS NOT NULL AND $6::float8 < newest AS stale, entered FROM article) AS decided
  WHERE stale OR entered`)}
${claimRows(RESTORE)}`,

    record,

    recordOrdered: `WITH recorded AS (
  ${record}
), article AS (
  UPDATE ${A} SET newest = greatest(newest, $6::float8),
    expires_at = greatest(now() + ${ms('$4')}, holder_expires_at)
  WHERE article_id = $5::text AND EXISTS (SELECT 1 FROM recorded)
)
SELECT recorded FROM recorded`,
  };
}
