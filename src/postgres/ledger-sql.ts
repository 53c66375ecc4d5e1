import type { Database } from './database.js';
import { postgresKeptTableSql } from './kept-store.js';
import { sqlState } from './postgres-errors.js';

/**
 * The table a Postgres ledger keeps its rows in unless `table` says otherwise.
 *
 * @example
 * ```ts
 * const { rows } = await pool.query(`SELECT count(*) FROM ${DEFAULT_LEDGER_TABLE} WHERE status = 401`);
 * ```
 */
export const DEFAULT_LEDGER_TABLE = 'webhook_ledger';

/** The names the ledger's SQL uses, all checked plain identifiers (so they need no quoting). */
export interface LedgerTables {
  /** The rows' table, as given (`webhook_ledger` or `schema.name`). */
  rows: string;
  /** The kept refusals' table beside it: `<table>_kept`, as the dedup store names its kept requests. */
  kept: string;
  /** The table's name without its schema, which its index names start with. */
  name: string;
}

// An unquoted identifier, optionally schema-qualified: the user writes it in SQL the same way.
// The name part leaves room for `_delivery_tenant_idx` within Postgres's 63-byte names.
const NAME = /^(?:([A-Za-z_][A-Za-z0-9_]{0,62})\.)?([A-Za-z_][A-Za-z0-9_]{0,41})$/;

/** Checks `table` and derives the other names from it. */
export function ledgerTablesFor(table: string = DEFAULT_LEDGER_TABLE, label = 'postgresLedger'): LedgerTables {
  const match = typeof table === 'string' ? NAME.exec(table) : null;
  if (!match) {
    throw new TypeError(
      `${label}: table must be a plain SQL name of at most 42 characters (letters, digits, underscores), optionally ` +
        `schema-qualified ("webhooks.ledger"); got ${JSON.stringify(table)}.`,
    );
  }
  const rows = match[1] ? `${match[1]}.${match[2]}` : match[2]!;
  return { rows, kept: `${rows}_kept`, name: match[2]! };
}

/**
 * The statements that create the rows' table and its indexes, each safe to run again. `id`
 * sorts in byte order (`COLLATE "C"`): ids are `r.<13-digit ms>.<hex>`, so the primary key
 * is also the time order lists page by, whatever the database's collation.
 */
export function ledgerTableStatements({ rows, name }: LedgerTables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${rows} (
  id text COLLATE "C" PRIMARY KEY,
  received_at timestamptz NOT NULL,
  duration_ms double precision NOT NULL,
  verified boolean NOT NULL,
  delivery_id text,
  event text,
  article_id text,
  slug text,
  article_status text,
  profile_id text,
  tenant text,
  status smallint NOT NULL,
  code text NOT NULL,
  token_index smallint,
  published_url text,
  copy integer NOT NULL,
  kept boolean,
  recovered_from text
)`,
    `CREATE INDEX IF NOT EXISTS ${name}_received_at_idx ON ${rows} (received_at)`,
    // Delivery id first: it is nearly unique, so counting a delivery's copies reads a row or two.
    `CREATE INDEX IF NOT EXISTS ${name}_delivery_tenant_idx ON ${rows} (delivery_id, tenant)`,
    `CREATE INDEX IF NOT EXISTS ${name}_article_id_idx ON ${rows} (article_id)`,
    `CREATE INDEX IF NOT EXISTS ${name}_status_idx ON ${rows} (status)`,
  ];
}

/**
 * Options of {@link postgresLedgerTableSql}.
 *
 * @example
 * ```ts
 * await pool.query(postgresLedgerTableSql({ table: 'webhooks.ledger' }));
 * ```
 */
export interface PostgresLedgerTableSqlOptions {
  /** The same `table` as given to `postgresLedger`. Default `webhook_ledger`. */
  table?: string;
}

/**
 * The SQL that creates a Postgres ledger's tables, for a migration (then pass
 * `createTable: false` to `postgresLedger`):
 *
 * - `<table>` (default `webhook_ledger`): one row per request a receiver got (what the
 *   envelope said, or for a refusal what the request claimed, and what was answered), with
 *   indexes on `received_at`, `(delivery_id, tenant)`, `article_id` and `status`.
 * - `<table>_kept`: the refused requests kept with `keepRefused`, as the dedup store keeps a
 *   rotation window's requests (the token only as its SHA-256).
 *
 * @example
 * ```ts
 * import { postgresLedgerTableSql } from 'webhook-cms-receiver/postgres';
 * await pool.query(postgresLedgerTableSql()); // in a migration; pg runs the statements in one call
 * const ledger = postgresLedger(pool, { createTable: false });
 * ```
 */
export function postgresLedgerTableSql(options: PostgresLedgerTableSqlOptions = {}): string {
  const tables = ledgerTablesFor(options.table, 'postgresLedgerTableSql');
  return `${ledgerTableStatements(tables).join(';\n\n')};\n\n${postgresKeptTableSql({ table: tables.rows })}`;
}

// Two processes creating the same table at once: one of them loses a race inside the catalog.
const CREATION_RACES = new Set(['23505', '42P07', '42710']);

/**
 * Creates the rows' table unless it exists. Checks first, so that a running system sends no
 * DDL (the kept refusals' table is created by its own store, on its first use).
 */
export async function createLedgerTable(db: Database, tables: LedgerTables): Promise<void> {
  const [row] = await db.query('SELECT to_regclass($1::text) IS NOT NULL AS found', [tables.rows]);
  if (row?.found === true) return;
  for (let attempt = 1; ; attempt++) {
    try {
      for (const statement of ledgerTableStatements(tables)) await db.query(statement, []);
      return;
    } catch (error) {
      const code = sqlState(error);
      if (attempt < 3 && code !== undefined && CREATION_RACES.has(code)) continue;
      throw explainLedgerError(error, tables);
    }
  }
}

/**
 * Wraps the database errors whose fix is on the user's side in one that names it (the original
 * stays as `cause`); others (connection refused, timeouts) pass unchanged.
 */
export function explainLedgerError(error: unknown, { rows }: LedgerTables): unknown {
  const migration = 'postgresLedgerTableSql({ table }) from webhook-cms-receiver/postgres';
  const code = sqlState(error);
  const fix =
    code === '42P01'
      ? `The table ${rows} does not exist: with createTable: false, run ${migration} in a migration first.`
      : code === '42501'
        ? `The database user lacks a privilege on ${rows}: run ${migration} as its owner and GRANT SELECT, INSERT, DELETE on it.`
        : code === '42703' || code === '42804'
          ? `${rows} exists with other columns than the ledger's: give postgresLedger another \`table\`.`
          : undefined;
  if (!fix) return error;
  const message = (error as { message?: unknown })?.message;
  return new Error(`postgresLedger: ${String(message ?? error)}. ${fix}`, { cause: error });
}
