/**
 * A dedup store shared by every process through Postgres, for the `pg` and `postgres` clients
 * (and PGlite), with stale-delivery ordering and a transactional mode: the handler's writes
 * and the delivery's done row commit together, so its effects in that database happen once.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const receiver = createReceiver({ token, dedup: postgresDedupStore(pool, { transactional: true }) });
 * ```
 * @module webhook-cms-receiver/postgres
 */
export { postgresDedupStore, type PostgresDedupStoreOptions, type TransactionalDedupStore } from './postgres-store.js';
export type { TransactionOf } from './transaction-of.js';
export { postgresKeptTableSql } from './kept-store.js';
export {
  postgresLedger,
  postgresLedgerStore,
  type PostgresLedgerOptions,
  type PostgresLedgerStoreOptions,
} from './ledger-store.js';
export { postgresLedgerTableSql, DEFAULT_LEDGER_TABLE, type PostgresLedgerTableSqlOptions } from './ledger-sql.js';
export {
  postgresDedupTableSql,
  POSTGRES_DEDUP_TABLE_SQL,
  DEFAULT_TABLE,
  type PostgresDedupTableSqlOptions,
} from './table-sql.js';
export type {
  PostgresClientLike,
  PgPoolLike,
  PgClientLike,
  PostgresJsLike,
  PostgresJsTransactionLike,
  PGliteLike,
  Row,
} from './database.js';
