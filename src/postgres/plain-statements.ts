import { claimRows } from './claim-rows.js';
import { claimedCte, claimUpsert, ms, STALE_JSONB, WHILE_HELD_OR_FREE } from './sql-parts.js';
import type { Tables } from './table-sql.js';

/**
 * Plain mode's statements: each step of a delivery is one statement, so one round trip, and
 * each statement is atomic on the rows it decides on. An upsert's conflict clause sees and
 * locks the row's newest committed version, so two claims of one id, or of one article,
 * decide one after the other on what the other wrote.
 */
export interface PlainStatements {
  /** $1 JSON array of `{ id, lease }`, $2 lease ms. A row per id: `source` ('claimed'), `id`, `lease`, `answer`. */
  claimBatch: string;
  /** $1 id, $2 lease, $3 lease ms, $4 retention ms, $5 article id, $6 envelope timestamp. */
  claimOrdered: string;
  /** $1 id, $2 lease, $3 lease ms. One row when the lease holds. */
  renew: string;
  /** $1 id, $2 lease, $3 lease ms, $4 article id. */
  renewOrdered: string;
  /** $1 JSON array of `{ id, lease, answer }`, $2 retention ms. A row (`id`) per delivery recorded. */
  completeBatch: string;
  /** $1 id, $2 lease, $3 answer JSON, $4 retention ms, $5 article id, $6 envelope timestamp. */
  completeOrdered: string;
  /** $1 id, $2 lease. */
  release: string;
  /** $1 id, $2 lease, $3 article id. */
  releaseOrdered: string;
  /** $1 article id, $2 lease: frees an article this lease entered for a delivery that turned out taken. */
  releaseArticle: string;
}

/** Builds plain mode's statements for the tables. */
export function plainStatements(t: Tables): PlainStatements {
  const D = t.deliveries;
  const A = t.articles;
  const claimed = (source: string) => claimedCte(D, source);
  // May this delivery run for the article now: not older than the mark (an equal timestamp
  // runs), and no live delivery holds the article. An expired mark counts as none.
  const enters = `(a.expires_at <= now() OR a.newest IS NULL OR $6::float8 >= a.newest)
      AND (a.expires_at <= now() OR a.holder IS NULL OR a.holder_expires_at <= now())`;
  const recordDone = `INSERT INTO ${D} AS d (id, lease, answer, expires_at)
  VALUES ($1::text, $2::text, $3::text::jsonb, now() + ${ms('$4')})
  ${WHILE_HELD_OR_FREE}
  RETURNING 1 AS recorded`;
  const renewDelivery = (source: string) => `INSERT INTO ${D} AS d (id, lease, answer, expires_at)
  ${source}
  ${WHILE_HELD_OR_FREE}
  RETURNING 1 AS held`;

  return {
    // One upsert, no CTE, for every claim of one turn (batch.ts): their ids and leases as one
    // JSON array, which any client sends as text. Every row comes back, taken or as it stands.
    claimBatch: claimUpsert(
      D,
      `SELECT u.id, u.lease, NULL::jsonb, now() + ${ms('$2')} FROM jsonb_to_recordset($1::text::jsonb) AS u(id text, lease text)`,
      `'claimed' AS source, d.id, `,
    ),

    // The snapshot's `known` row lets a duplicate of a live delivery skip the article (so it
    // neither waits on nor holds it); the article's upsert decides under its row lock; the
    // delivery is claimed only if the article let it in, or recorded done if it is stale.
    claimOrdered: `WITH known AS (
  SELECT lease, answer::text AS answer FROM ${D} WHERE id = $1::text AND expires_at > now()
), article AS (
  INSERT INTO ${A} AS a (article_id, newest, holder, holder_expires_at, expires_at)
  SELECT $5::text, NULL, $2::text, now() + ${ms('$3')}, now() + ${ms('$3')} WHERE NOT EXISTS (SELECT 1 FROM known)
  ON CONFLICT (article_id) DO UPDATE SET
    newest = CASE WHEN a.expires_at > now() THEN a.newest END,
    holder = CASE WHEN ${enters} THEN excluded.holder ELSE a.holder END,
    holder_expires_at = CASE WHEN ${enters} THEN excluded.holder_expires_at ELSE a.holder_expires_at END,
    expires_at = CASE WHEN a.expires_at <= now() THEN excluded.expires_at
      WHEN ${enters} THEN greatest(a.expires_at, excluded.expires_at) ELSE a.expires_at END
  RETURNING a.newest, a.holder = $2::text AS entered
), ${claimed(`SELECT $1::text, $2::text, CASE WHEN stale THEN ${STALE_JSONB} END,
    now() + ${ms('CASE WHEN stale THEN $4::float8 ELSE $3::float8 END')}
  FROM (SELECT newest IS NOT NULL AND $6::float8 < newest AS stale, entered FROM article) AS decided
  WHERE stale OR entered`)}
${claimRows()}`,

    renew: renewDelivery(`VALUES ($1::text, $2::text, NULL::jsonb, now() + ${ms('$3')})`),

    // The article first: its hold is this lease's, or free (then taken again, as after a
    // lapse); only then the delivery. Either held by another request: no row.
    renewOrdered: `WITH article AS (
  INSERT INTO ${A} AS a (article_id, newest, holder, holder_expires_at, expires_at)
  VALUES ($4::text, NULL, $2::text, now() + ${ms('$3')}, now() + ${ms('$3')})
  ON CONFLICT (article_id) DO UPDATE SET
    newest = CASE WHEN a.expires_at > now() THEN a.newest END,
    holder = excluded.holder,
    holder_expires_at = excluded.holder_expires_at,
    expires_at = CASE WHEN a.expires_at > now() THEN greatest(a.expires_at, excluded.expires_at)
      ELSE excluded.expires_at END
  WHERE a.holder = excluded.holder OR a.holder IS NULL OR a.holder_expires_at <= now() OR a.expires_at <= now()
  RETURNING 1
), renewed AS (
  ${renewDelivery(`SELECT $1::text, $2::text, NULL::jsonb, now() + ${ms('$3')} FROM article`)}
)
SELECT held FROM renewed`,

    // Every completion of one turn; a row comes back for each one recorded.
    completeBatch: `INSERT INTO ${D} AS d (id, lease, answer, expires_at)
  SELECT u.id, u.lease, u.answer, now() + ${ms('$2')} FROM jsonb_to_recordset($1::text::jsonb) AS u(id text, lease text, answer jsonb)
  ${WHILE_HELD_OR_FREE}
  RETURNING d.id`,

    // Recorded: the article's mark rises to this timestamp (never falls) and, if this lease
    // still holds the article, lets the next delivery in. Taken over: nothing changes.
    completeOrdered: `WITH recorded AS (
  ${recordDone}
), article AS (
  INSERT INTO ${A} AS a (article_id, newest, holder, holder_expires_at, expires_at)
  SELECT $5::text, $6::float8, NULL, NULL, now() + ${ms('$4')} FROM recorded
  ON CONFLICT (article_id) DO UPDATE SET
    newest = CASE WHEN a.expires_at > now() AND a.newest > excluded.newest THEN a.newest ELSE excluded.newest END,
    holder = CASE WHEN a.holder = $2::text THEN NULL ELSE a.holder END,
    holder_expires_at = CASE WHEN a.holder = $2::text THEN NULL ELSE a.holder_expires_at END,
    expires_at = greatest(excluded.expires_at, CASE WHEN a.holder <> $2::text THEN a.holder_expires_at END)
)
SELECT recorded FROM recorded`,

    release: `DELETE FROM ${D} WHERE id = $1::text AND lease = $2::text AND answer IS NULL`,

    releaseOrdered: `WITH freed AS (
  DELETE FROM ${D} WHERE id = $1::text AND lease = $2::text AND answer IS NULL
), article AS (
  UPDATE ${A} SET holder = NULL, holder_expires_at = NULL WHERE article_id = $3::text AND holder = $2::text
)
SELECT 1 AS released`,

    releaseArticle: `UPDATE ${A} SET holder = NULL, holder_expires_at = NULL WHERE article_id = $1::text AND holder = $2::text`,
  };
}
