import { createLedger, type Ledger, type LedgerOptions, type LedgerStore } from 'webhook-cms-receiver';
import type { Database, PostgresClientLike } from './database.js';
import { databaseOf } from './database-of.js';
import { postgresKeptRequests } from './kept-store.js';
import { createLedgerTable, explainLedgerError, type LedgerTables, ledgerTablesFor } from './ledger-sql.js';
import { appendStatement, listStatement, pruneStatement, rowOf, summaryStatement } from './ledger-statements.js';
import { tablesFor } from './table-sql.js';

/**
 * Where a Postgres ledger's rows live: what {@link postgresLedgerStore} and {@link postgresLedger} take besides the ledger's own options.
 *
 * @example
 * ```ts
 * const store = postgresLedgerStore(pool, { table: 'webhooks.ledger', createTable: false });
 * ```
 */
export interface PostgresLedgerStoreOptions {
  /**
   * The rows' table; kept refusals go in `<table>_kept`. A plain SQL name, optionally
   * schema-qualified (`webhooks.ledger`). Default `webhook_ledger`.
   */
  table?: string;
  /**
   * Creates the tables on first use when they are missing. Default true. Pass false when a
   * migration creates them (`postgresLedgerTableSql()`) and the database user may not run DDL.
   */
  createTable?: boolean;
  /** The clock kept refusals' expiry is counted from, epoch ms (default `Date.now`). */
  now?: () => number;
}

/**
 * Options of {@link postgresLedger}: the ledger's options and where its rows live.
 *
 * @example
 * ```ts
 * const ledger = postgresLedger(pool, { table: 'site_ledger', keepRefused: true, retentionMs: 14 * 86_400_000 });
 * ```
 */
export interface PostgresLedgerOptions extends LedgerOptions, Omit<PostgresLedgerStoreOptions, 'now'> {}

/**
 * The {@link LedgerStore} of {@link postgresLedger}, for `createLedger(store, options)` when
 * you build the ledger yourself (or to run `checkLedgerStore` on it). Each `append` is one
 * statement for its whole batch (copies counted in it), lists and summaries are one each, and
 * `prune` is one DELETE. Works with the same clients as `postgresDedupStore`.
 *
 * @example
 * ```ts
 * import { createLedger } from 'webhook-cms-receiver';
 * import { postgresLedgerStore } from 'webhook-cms-receiver/postgres';
 * const ledger = createLedger(postgresLedgerStore(pool, { table: 'site_ledger' }), { retentionMs: 7 * 86_400_000 });
 * ```
 */
export function postgresLedgerStore(db: PostgresClientLike, options: PostgresLedgerStoreOptions = {}): LedgerStore {
  const label = 'postgresLedger';
  const database = databaseOf(db, label);
  const tables = ledgerTablesFor(options.table, label);
  if (options.createTable !== undefined && typeof options.createTable !== 'boolean') {
    throw new TypeError(`${label}: createTable must be true or false, got ${String(options.createTable)}.`);
  }
  const createTable = options.createTable !== false;
  const ready = createTable ? once(() => createLedgerTable(database, tables)) : () => Promise.resolve();
  const run = runner(database, tables, ready);
  return {
    async append(entries) {
      if (entries.length === 0) return;
      await run(...appendStatement(tables, entries));
    },
    async list(filter) {
      const found = (await run(...listStatement(tables, filter))).map(rowOf);
      if (found.length <= filter.limit) return { rows: found };
      found.length = filter.limit;
      return { rows: found, next: found[found.length - 1]!.id };
    },
    async summary(range) {
      const hours = await run(...summaryStatement(tables, range));
      return hours.map((hour) => ({
        hour: Number(hour.hour),
        delivered: Number(hour.delivered),
        refused: Number(hour.refused),
        rejected: Number(hour.rejected),
        failed: Number(hour.failed),
      }));
    },
    async prune(limits) {
      const [row] = await run(...pruneStatement(tables, limits));
      return Number(row?.count ?? 0);
    },
    refusals: postgresKeptRequests(database, tablesFor(tables.rows, label), createTable, options.now),
  };
}

/**
 * A delivery ledger in Postgres, shared by every receiver process on the database: one row per
 * request a receiver got (see `Ledger`), written in batches of one statement each, never on
 * an answer's path: a database that is down costs a `warn` line and rows retried later, never
 * a 503. Works with the `pg` Pool or Client, the `postgres` client (postgres.js) and PGlite,
 * recognised at runtime. The tables are created on first use unless `createTable: false`
 * (see `postgresLedgerTableSql`).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { postgresLedger } from 'webhook-cms-receiver/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const ledger = postgresLedger(pool, { keepRefused: true });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * // The morning after: what was refused in the last day.
 * const { rows } = await ledger.list({ status: '4xx', since: Date.now() - 86_400_000 });
 * ```
 */
export function postgresLedger(db: PostgresClientLike, options: PostgresLedgerOptions = {}): Ledger {
  const { table, createTable, ...ledgerOptions } = options;
  const storeOptions: PostgresLedgerStoreOptions = {};
  if (table !== undefined) storeOptions.table = table;
  if (createTable !== undefined) storeOptions.createTable = createTable;
  if (options.now) storeOptions.now = options.now;
  return createLedger(postgresLedgerStore(db, storeOptions), ledgerOptions);
}

/** Runs a statement once the table exists, with the fix named when the table is the problem. */
function runner(database: Database, tables: LedgerTables, ready: () => Promise<void>) {
  return async (text: string, params: unknown[]) => {
    await ready();
    try {
      return await database.query(text, params);
    } catch (error) {
      throw explainLedgerError(error, tables);
    }
  };
}

/** Runs `task` once, when first needed; a failure is not remembered, so the next call tries again. */
function once(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= task().catch((error: unknown) => {
      running = undefined;
      throw error;
    });
    return running;
  };
}
