import type { LedgerEntry, LedgerFilter, LedgerLimits, LedgerRow } from 'webhook-cms-receiver';
import type { Row } from './database.js';
import type { LedgerTables } from './ledger-sql.js';

/**
 * Indexed columns hold at most this many UTF-16 code units (at most 3 bytes each in UTF-8):
 * a btree refuses entries over about 2.7 kB, and one refused row must never fail the batch it
 * is written in. Filters are cut the same way, so a long id still finds its rows.
 */
const INDEXED_MAX = 400;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as Postgres can hold it: `text` refuses U+0000 and jsonb a lone surrogate, both of which
 * a refused request's claims may carry; each becomes U+FFFD.
 */
export function storable(value: string, max = Number.POSITIVE_INFINITY): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what must go.
  const text = value.replace(/\u0000/g, '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const text = (value: string | null, max?: number) => (value === null ? null : storable(value, max));

/** The columns a list reads, with times as epoch ms. */
const COLUMNS = `id, round(extract(epoch FROM received_at) * 1000)::float8 AS received_ms, duration_ms, verified,
  delivery_id, event, article_id, slug, article_status, profile_id, tenant, status, code, token_index,
  published_url, copy, kept, recovered_from`;

/**
 * The append: one statement for the whole batch, its rows one JSON array. Each row's `copy` is
 * 1 + the rows of its tenant and delivery id already in the table + those before it in the
 * batch (`row_number` over the batch's order); 0 without a delivery id.
 */
export function appendStatement({ rows }: LedgerTables, entries: readonly LedgerEntry[]): [string, unknown[]] {
  const batch = entries.map((entry) => ({
    id: entry.id,
    received_ms: entry.receivedAt,
    duration_ms: entry.durationMs,
    verified: entry.verified,
    delivery_id: text(entry.deliveryId, INDEXED_MAX),
    event: text(entry.event),
    article_id: text(entry.articleId, INDEXED_MAX),
    slug: text(entry.slug),
    article_status: text(entry.articleStatus),
    profile_id: text(entry.profileId),
    tenant: text(entry.tenant, INDEXED_MAX),
    status: entry.status,
    code: storable(entry.code),
    token_index: entry.tokenIndex,
    published_url: text(entry.publishedUrl),
    kept: entry.kept ?? null,
    recovered_from: text(entry.recoveredFrom ?? null),
  }));
  const sql = `INSERT INTO ${rows} (id, received_at, duration_ms, verified, delivery_id, event, article_id, slug,
  article_status, profile_id, tenant, status, code, token_index, published_url, copy, kept, recovered_from)
SELECT e.id, to_timestamp(e.received_ms / 1000), e.duration_ms, e.verified, e.delivery_id, e.event, e.article_id,
  e.slug, e.article_status, e.profile_id, e.tenant, e.status, e.code, e.token_index, e.published_url,
  CASE WHEN e.delivery_id IS NULL THEN 0 ELSE
    row_number() OVER (PARTITION BY e.tenant, e.delivery_id ORDER BY e.ord)
    + (SELECT count(*) FROM ${rows} AS l WHERE l.delivery_id = e.delivery_id AND l.tenant IS NOT DISTINCT FROM e.tenant)
  END,
  e.kept, e.recovered_from
FROM ROWS FROM (jsonb_to_recordset($1::text::jsonb) AS (id text, received_ms float8, duration_ms float8, verified boolean,
  delivery_id text, event text, article_id text, slug text, article_status text, profile_id text, tenant text,
  status smallint, code text, token_index smallint, published_url text, kept boolean, recovered_from text))
  WITH ORDINALITY AS e(id, received_ms, duration_ms, verified, delivery_id, event, article_id, slug, article_status,
    profile_id, tenant, status, code, token_index, published_url, kept, recovered_from, ord)`;
  return [sql, [JSON.stringify(batch)]];
}

/** A list: the filter's conditions as parameters (only those given), newest first, one row more than the page. */
export function listStatement({ rows }: LedgerTables, filter: LedgerFilter): [string, unknown[]] {
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (condition: (param: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (filter.since !== undefined) add((p) => `received_at >= to_timestamp(${p}::float8 / 1000)`, filter.since);
  if (filter.until !== undefined) add((p) => `received_at < to_timestamp(${p}::float8 / 1000)`, filter.until);
  if (filter.statusFrom !== undefined) add((p) => `status >= ${p}::integer`, filter.statusFrom);
  if (filter.statusTo !== undefined) add((p) => `status <= ${p}::integer`, filter.statusTo);
  if (filter.event !== undefined) add((p) => `event = ${p}::text`, storable(filter.event));
  if (filter.article !== undefined) add((p) => `article_id = ${p}::text`, storable(filter.article, INDEXED_MAX));
  if (filter.tenant !== undefined) add((p) => `tenant = ${p}::text`, storable(filter.tenant, INDEXED_MAX));
  if (filter.deliveryId !== undefined) add((p) => `delivery_id = ${p}::text`, storable(filter.deliveryId, INDEXED_MAX));
  if (filter.verified !== undefined) add((p) => `verified = ${p}::boolean`, filter.verified);
  if (filter.recoveredFrom !== undefined) add((p) => `recovered_from = ${p}::text`, storable(filter.recoveredFrom));
  if (filter.cursor !== undefined) add((p) => `id < ${p}::text`, storable(filter.cursor));
  params.push(filter.limit + 1);
  const sql = `SELECT ${COLUMNS} FROM ${rows}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
ORDER BY id DESC LIMIT $${params.length}::integer`;
  return [sql, params];
}

/** A row as read back: the entry as appended, with its copy. */
export function rowOf(row: Row): LedgerRow {
  const nullable = (value: unknown) => (value === null || value === undefined ? null : String(value));
  const result: LedgerRow = {
    id: String(row.id),
    receivedAt: Number(row.received_ms),
    durationMs: Number(row.duration_ms),
    verified: row.verified === true,
    deliveryId: nullable(row.delivery_id),
    event: nullable(row.event),
    articleId: nullable(row.article_id),
    slug: nullable(row.slug),
    articleStatus: nullable(row.article_status),
    profileId: nullable(row.profile_id),
    tenant: nullable(row.tenant),
    status: Number(row.status),
    code: String(row.code),
    tokenIndex: row.token_index === null || row.token_index === undefined ? null : Number(row.token_index),
    publishedUrl: nullable(row.published_url),
    copy: Number(row.copy),
  };
  if (typeof row.kept === 'boolean') result.kept = row.kept;
  if (row.recovered_from !== null && row.recovered_from !== undefined)
    result.recoveredFrom = String(row.recovered_from);
  return result;
}

/**
 * Counts per UTC hour (`AT TIME ZONE 'UTC'`: `date_trunc` on a timestamptz would cut at the
 * session's hours, half an hour off in India), by the classes of `outcomeClass`.
 */
export function summaryStatement(
  { rows }: LedgerTables,
  range: { since: number; until: number; tenant?: string },
): [string, unknown[]] {
  const params: unknown[] = [range.since, range.until];
  if (range.tenant !== undefined) params.push(storable(range.tenant, INDEXED_MAX));
  const sql = `SELECT extract(epoch FROM date_trunc('hour', received_at AT TIME ZONE 'UTC'))::float8 * 1000 AS hour,
  count(*) FILTER (WHERE status BETWEEN 200 AND 299)::int AS delivered,
  count(*) FILTER (WHERE status IN (401, 403))::int AS refused,
  count(*) FILTER (WHERE status BETWEEN 400 AND 499 AND status NOT IN (401, 403))::int AS rejected,
  count(*) FILTER (WHERE NOT (status BETWEEN 200 AND 299 OR status BETWEEN 400 AND 499))::int AS failed
FROM ${rows}
WHERE received_at >= to_timestamp($1::float8 / 1000) AND received_at < to_timestamp($2::float8 / 1000)${
    range.tenant !== undefined ? ' AND tenant = $3::text' : ''
  }
GROUP BY 1 ORDER BY 1`;
  return [sql, params];
}

/**
 * The prune, one statement: rows received before `before`, verified rows past the newest
 * `maxRowsPerTenant` of their tenant (rows without one count as one tenant), and refused rows
 * past the newest `maxRefusedRows` of all. Ranked by id, which sorts by time.
 */
export function pruneStatement({ rows }: LedgerTables, limits: LedgerLimits): [string, unknown[]] {
  const sql = `WITH ranked AS (
  SELECT id, received_at, verified,
    row_number() OVER (PARTITION BY verified, CASE WHEN verified THEN tenant END ORDER BY id DESC) AS n
  FROM ${rows}
), gone AS (
  DELETE FROM ${rows} AS r USING ranked
  WHERE r.id = ranked.id AND (ranked.received_at < to_timestamp($1::float8 / 1000)
    OR ranked.n > CASE WHEN ranked.verified THEN $2::bigint ELSE $3::bigint END)
  RETURNING 1
)
SELECT count(*)::int AS count FROM gone`;
  // A bound of Infinity (no bound) as the largest bigint the parameter can carry exactly.
  const bound = (value: number) => Math.floor(Math.min(value, Number.MAX_SAFE_INTEGER));
  return [sql, [limits.before, bound(limits.maxRowsPerTenant), bound(limits.maxRefusedRows)]];
}
