import {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type DedupClaim,
  type DedupStore,
  type StoredAnswer,
  type TransactOutcome,
} from 'webhook-cms-receiver';
import { positiveOption } from '../internal/positive.js';
import type { PostgresClientLike } from './database.js';
import { databaseOf } from './database-of.js';
import { postgresKeptRequests } from './kept-store.js';
import { plainStore } from './plain-store.js';
import { sweeper } from './sweeper.js';
import { createTables, tablesFor } from './table-sql.js';
import type { TransactionOf } from './transaction-of.js';
import { transactFor } from './transact.js';

/**
 * A store whose `transact` names the transaction it hands the work: what
 * `postgresDedupStore(db, { transactional: true })` returns, so `startWorker(source, { dedup,
 * handlers })` types the handlers' `tx` without a type argument.
 */
export interface TransactionalDedupStore<Tx> extends Omit<DedupStore, 'transact'> {
  transact(claim: DedupClaim, work: (tx: Tx) => Promise<StoredAnswer>): Promise<TransactOutcome>;
}

/** Options of {@link postgresDedupStore}. */
export interface PostgresDedupStoreOptions {
  /**
   * Runs each handler inside a database transaction that also records the delivery: the
   * handler gets it as `{ tx }` (a `pg` client inside BEGIN, a `postgres` transaction `sql`,
   * or a PGlite transaction), and its writes through `tx` commit with the done row or not at
   * all. Default false: plain mode, with leases renewed while the handler runs.
   */
  transactional?: boolean;
  /**
   * The deliveries table; ordering also uses `<table>_articles`. A plain SQL name, optionally
   * schema-qualified (`webhooks.deliveries`). Default `webhook_deliveries`. Receivers that
   * must not share deliveries use different tables.
   */
  table?: string;
  /**
   * Plain mode: how long a claim holds without renewal, so a crashed process's delivery may
   * run again. Default 60 s. (Transactional mode needs none: the open transaction holds the
   * claim, and a dead connection rolls it back.)
   */
  leaseMs?: number;
  /** How long a handled delivery id, and an article's newest timestamp, are remembered. Default 72 h. */
  retentionMs?: number;
  /**
   * Creates the tables on first use when they are missing. Default true. Pass false when a
   * migration creates them (`postgresDedupTableSql()`) and the database user may not run DDL.
   */
  createTable?: boolean;
  /**
   * `pg` only: sends the store's statements (claim, renew, complete, release, the sweep) as
   * named prepared statements, which Postgres parses and plans once per connection instead of
   * on every delivery: about half of Postgres's CPU per delivery at load (see BENCHMARKS.md).
   * Default false, because it needs what `pg` itself needs for names: a pool whose `query`
   * takes `pg`'s `{ name, text, values }` config (a `pg` Pool or Client does), and sessions
   * that keep what was prepared on them: a direct connection, or PgBouncer in session mode, or
   * in transaction mode from 1.21 with `max_prepared_statements` above 0. Behind an older
   * PgBouncer in transaction mode, statements fail with "prepared statement … does not exist".
   * The `postgres` client prepares on its own (unless created with `prepare: false`) and
   * PGlite runs in-process: for them this option changes nothing.
   */
  preparedStatements?: boolean;
}

/**
 * Remembers deliveries in Postgres, so every receiver process and serverless instance
 * deduplicates as one; supports `createReceiver({ ordering: true })`. Works with the `pg`
 * Pool or Client (and pools with its API, such as Neon's), the `postgres` client (postgres.js)
 * and PGlite, recognised at runtime: none of them is imported.
 *
 * **Plain mode** (default) has the semantics of the memory and Redis stores: an atomic claim
 * (INSERT … ON CONFLICT) with a lease renewed while the handler runs; `complete` records the
 * delivery unless another request took it over; `release` frees it after a failure. Two
 * statements per delivery; without ordering, the claims (and the completions) of one turn of
 * the event loop share one. Leases and retention run on the database's clock (`now()`), never
 * the hosts'. Expired rows are deleted by the claims, a batch every few claims: no cron job.
 *
 * **Transactional mode** (`transactional: true`): exactly-once effects for work done in this
 * database. The handler runs inside the transaction that holds the delivery's row; a handler
 * that throws, a failed commit or a process killed mid-handler leaves neither its writes nor
 * the done row, so the service's retry runs cleanly. A second copy in flight answers 409
 * within about a second. Writes outside `tx` (other databases, e-mails, HTTP calls) stay
 * at-least-once. Pass a Pool: one Client (or PGlite) holds one transaction at a time, so
 * deliveries on it queue behind each other.
 *
 * The tables are created on first use unless `createTable: false` (see
 * {@link postgresDedupTableSql} for the SQL). Database errors propagate, so the receiver
 * answers 503 and the service retries.
 *
 * **Dropped connections** (a restart, a failover, `pg_terminate_backend`) while a claim or a
 * transaction is open answer 503 with nothing recorded, and never end the process: the store
 * listens for `pg`'s `'error'` event on a connection while it uses it. Outside the store's
 * statements the client is yours: give a `pg` Pool `pool.on('error', …)` for its idle
 * connections, as `pg` asks. A `pg` Client whose connection dropped stays unusable (every
 * delivery answers 503 until you connect a new one), another reason to pass a Pool.
 *
 * **Any string is an id.** A delivery id or article id of at most 512 UTF-16 code units,
 * well-formed, without U+0000 and not starting with U+0001 is stored as given. Any other is
 * stored as U+0001, `sha256:` and the hex SHA-256 of its UTF-16 code units: Postgres `text`
 * cannot hold U+0000, its index refuses rows over about 2.7 kB, and UTF-8 would turn
 * '\uD800' and '\uDC00' into the same U+FFFD. Two distinct ids never share a row.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const receiver = createReceiver({ token, ordering: true, dedup: postgresDedupStore(pool, { transactional: true }) });
 * const handlers: WebhookHandlers<{ tx: pg.PoolClient }> = {
 *   'article.sync': async ({ article }, { tx }) => {
 *     await tx.query('INSERT INTO posts (id, title) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET title = $2', [
 *       article.id,
 *       article.title,
 *     ]);
 *   },
 * };
 * ```
 */
export function postgresDedupStore<Db extends PostgresClientLike>(
  db: Db,
  options: PostgresDedupStoreOptions & { transactional: true },
): TransactionalDedupStore<TransactionOf<Db>>;
export function postgresDedupStore(db: PostgresClientLike, options?: PostgresDedupStoreOptions): DedupStore;
export function postgresDedupStore(db: PostgresClientLike, options: PostgresDedupStoreOptions = {}): DedupStore {
  const label = 'postgresDedupStore';
  const prepare = booleanOption(options.preparedStatements, false, `${label}: preparedStatements`);
  const database = databaseOf(db, label, { prepare });
  const tables = tablesFor(options.table, label);
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, `${label}: leaseMs`);
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, `${label}: retentionMs`);
  const createTable = booleanOption(options.createTable, true, `${label}: createTable`);
  const transactional = booleanOption(options.transactional, false, `${label}: transactional`);
  const ready = createTable ? onFirstUse(() => createTables(database, tables)) : () => ALREADY;
  const settings = {
    db: database,
    tables,
    leaseMs,
    retentionMs,
    ready,
    sweeper: sweeper({ db: database, tables, ready }),
  };
  const plain = { ...plainStore(settings), kept: postgresKeptRequests(database, tables, createTable) };
  return transactional ? { ...plain, transact: transactFor(settings) } : plain;
}

const ALREADY = Promise.resolve();

/**
 * Runs `task` once, when first needed; concurrent callers share the run. A failure is not
 * remembered: the next delivery tries again (after the user fixed a grant, say).
 */
function onFirstUse(task: () => Promise<void>): () => Promise<void> {
  let done = false;
  let running: Promise<void> | undefined;
  return () => {
    if (done) return ALREADY;
    running ??= task().then(
      () => {
        done = true;
      },
      (error: unknown) => {
        running = undefined;
        throw error;
      },
    );
    return running;
  };
}

function booleanOption(value: boolean | undefined, fallback: boolean, label: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`${label} must be true or false, got ${String(value)}.`);
  return value;
}
