import type { Database } from './database.js';
import { explainPostgresError, sqlState } from './postgres-errors.js';

/** The table deliveries are remembered in unless `table` says otherwise. */
export const DEFAULT_TABLE = 'webhook_deliveries';

/** The names the store's SQL uses, all checked plain identifiers (so they need no quoting). */
export interface Tables {
  /** The deliveries table, as given (`webhook_deliveries` or `schema.name`). */
  deliveries: string;
  /** The articles table beside it, for ordering: `<table>_articles`. */
  articles: string;
  deliveriesIndex: string;
  articlesIndex: string;
}

// An unquoted identifier, optionally schema-qualified: the user writes it in SQL the same way.
// The table part leaves room for `_articles_expires_at` within Postgres's 63-byte names.
const NAME = /^(?:([A-Za-z_][A-Za-z0-9_]{0,62})\.)?([A-Za-z_][A-Za-z0-9_]{0,41})$/;

/** Checks `table` and derives the other names from it. */
export function tablesFor(table: string = DEFAULT_TABLE, label = 'postgresDedupStore'): Tables {
  const match = typeof table === 'string' ? NAME.exec(table) : null;
  if (!match) {
    throw new TypeError(
      `${label}: table must be a plain SQL name of at most 42 characters (letters, digits, underscores), optionally ` +
        `schema-qualified ("webhooks.deliveries"); got ${JSON.stringify(table)}.`,
    );
  }
  const schema = match[1] ? `${match[1]}.` : '';
  const name = match[2]!;
  return {
    deliveries: `${schema}${name}`,
    articles: `${schema}${name}_articles`,
    deliveriesIndex: `${name}_expires_at_idx`,
    articlesIndex: `${name}_articles_expires_at_idx`,
  };
}

/** The statements that create the store's tables, one per entry, each safe to run again. */
export function tableStatements(tables: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${tables.deliveries} (
  id text PRIMARY KEY,
  lease text NOT NULL,
  answer jsonb,
  expires_at timestamptz NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${tables.deliveriesIndex} ON ${tables.deliveries} (expires_at)`,
    `CREATE TABLE IF NOT EXISTS ${tables.articles} (
  article_id text PRIMARY KEY,
  newest double precision,
  holder text,
  holder_expires_at timestamptz,
  expires_at timestamptz NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${tables.articlesIndex} ON ${tables.articles} (expires_at)`,
  ];
}

/** Options of {@link postgresDedupTableSql}. */
export interface PostgresDedupTableSqlOptions {
  /** The same `table` as given to `postgresDedupStore`. Default `webhook_deliveries`. */
  table?: string;
}

/**
 * The SQL that creates the store's two tables, for a migration (then pass `createTable: false`).
 *
 * - `<table>` (default `webhook_deliveries`): one row per delivery id (an id with U+0000, a
 *   lone surrogate or over 512 code units, or one starting with U+0001, is stored as U+0001,
 *   `sha256:` and a hash; `article_id` likewise). `lease` identifies the
 *   request holding it; `answer` is null while a handler runs and the stored answer once done;
 *   the row counts as absent once `expires_at` (the lease, then the retention) has passed.
 * - `<table>_articles`: with `ordering: true`, per article the newest envelope timestamp
 *   applied (`newest`, trash included) and the delivery running for it (`holder`).
 *
 * Every time in them is the database's own clock (`now()`). Expired rows are deleted by the
 * store itself, up to 64 per table on a store's first claim and every 16th: no cron job is needed.
 *
 * @example
 * ```ts
 * import { postgresDedupTableSql } from 'webhook-cms-receiver/postgres';
 * await pool.query(postgresDedupTableSql()); // in a migration; pg runs the statements in one call
 * const store = postgresDedupStore(pool, { createTable: false });
 * ```
 */
export function postgresDedupTableSql(options: PostgresDedupTableSqlOptions = {}): string {
  const tables = tablesFor(options.table, 'postgresDedupTableSql');
  return `${tableStatements(tables).join(';\n\n')};\n`;
}

/**
 * The default tables' SQL, as {@link postgresDedupTableSql} gives it:
 *
 * ```sql
 * CREATE TABLE IF NOT EXISTS webhook_deliveries (
 *   id text PRIMARY KEY,
 *   lease text NOT NULL,
 *   answer jsonb,
 *   expires_at timestamptz NOT NULL
 * );
 * CREATE INDEX IF NOT EXISTS webhook_deliveries_expires_at_idx ON webhook_deliveries (expires_at);
 * CREATE TABLE IF NOT EXISTS webhook_deliveries_articles (
 *   article_id text PRIMARY KEY,
 *   newest double precision,
 *   holder text,
 *   holder_expires_at timestamptz,
 *   expires_at timestamptz NOT NULL
 * );
 * CREATE INDEX IF NOT EXISTS webhook_deliveries_articles_expires_at_idx ON webhook_deliveries_articles (expires_at);
 * ```
 */
export const POSTGRES_DEDUP_TABLE_SQL: string = postgresDedupTableSql();

// Two processes creating the same table at once: one of them loses a race inside the catalog.
const CREATION_RACES = new Set(['23505', '42P07', '42710']);

/**
 * Creates the tables unless they exist. Checks first, so that a running system sends no DDL
 * (and postgres.js prints no "already exists, skipping" notices).
 */
export async function createTables(db: Database, tables: Tables): Promise<void> {
  const [row] = await db.query(
    'SELECT to_regclass($1::text) IS NOT NULL AS deliveries, to_regclass($2::text) IS NOT NULL AS articles',
    [tables.deliveries, tables.articles],
  );
  if (row?.deliveries === true && row.articles === true) return;
  for (let attempt = 1; ; attempt++) {
    try {
      for (const statement of tableStatements(tables)) await db.query(statement, []);
      return;
    } catch (error) {
      const code = sqlState(error);
      if (attempt < 3 && code !== undefined && CREATION_RACES.has(code)) continue;
      throw explainPostgresError(error, tables, 'create its tables');
    }
  }
}
