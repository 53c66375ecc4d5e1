import { pgClient, pgPool } from './pg-database.js';
import { postgresJs } from './postgres-js-database.js';
import { rethrowingOriginal } from './rethrow-original.js';

/** A row as the clients return it: column name to value. */
export type Row = Record<string, unknown>;

/** Runs one parameterised statement and gives its rows. */
export type Query = (text: string, params: readonly unknown[]) => Promise<Row[]>;

/**
 * The one shape the store needs, whichever client it was given. `transaction` runs `work`
 * inside BEGIN … COMMIT on one connection, with a `Query` bound to that connection and the
 * client's own transaction object (what a handler receives as `tx`). When `work` throws, it
 * rolls back and rethrows that same error; a failed COMMIT rejects with the database's error.
 */
export interface Database {
  readonly kind: 'pg-pool' | 'pg-client' | 'postgres' | 'pglite';
  query: Query;
  transaction<T>(work: (query: Query, tx: unknown) => Promise<T>): Promise<T>;
}

/** The part of a `pg` Pool (or a compatible pool: Neon, Vercel) the store uses. */
export interface PgPoolLike {
  connect(): Promise<PgClientLike & { release(destroy?: unknown): void }>;
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  readonly totalCount: number;
  readonly idleCount: number;
}

/** The part of a connected `pg` Client (or a client checked out of a Pool) the store uses. */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

/** The part of a postgres.js transaction `sql` (what `sql.begin` hands its callback) the store uses. */
export interface PostgresJsTransactionLike {
  unsafe(text: string, params?: unknown[], options?: { prepare?: boolean }): PromiseLike<Row[]>;
}

/** The part of a `postgres` (postgres.js) `sql` instance the store uses. */
export interface PostgresJsLike extends PostgresJsTransactionLike {
  // biome-ignore lint/suspicious/noExplicitAny: a tagged-template function whose exact signature varies by version.
  (...args: any[]): unknown;
  begin<T>(work: (sql: PostgresJsTransactionLike) => Promise<T>): Promise<T>;
}

/** The part of a PGlite instance (`@electric-sql/pglite`) the store uses. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(work: (tx: { query: PGliteLike['query'] }) => Promise<T>): Promise<T>;
}

/** Any database client `postgresDedupStore` accepts. */
export type PostgresClientLike = PgPoolLike | PgClientLike | PostgresJsLike | PGliteLike;

/**
 * Recognises the client by its shape, never by importing its package: `postgres`'s `sql` is a
 * function with `unsafe` and `begin`; PGlite has `transaction` and `exec`; a `pg` Pool counts
 * its connections; anything else with `query` is taken as one `pg` connection.
 */
export function databaseOf(client: unknown, label: string): Database {
  const c = client as Record<string, unknown> | null | undefined;
  const fn = client as Partial<PostgresJsLike>;
  if (typeof client === 'function' && typeof fn.unsafe === 'function' && typeof fn.begin === 'function') {
    return postgresJs(client as PostgresJsLike);
  }
  if (c && typeof c === 'object' && typeof c.query === 'function') {
    if (typeof c.transaction === 'function' && typeof c.exec === 'function') return pglite(client as PGliteLike);
    if (typeof c.connect === 'function' && 'totalCount' in c && 'idleCount' in c) return pgPool(client as PgPoolLike);
    return pgClient(client as PgClientLike);
  }
  throw new TypeError(
    `${label}: expected a database client: a \`pg\` Pool or Client (new Pool({ connectionString })), a \`postgres\` ` +
      `sql instance (postgres(url)) or a PGlite instance; got ${client === null ? 'null' : typeof client}.`,
  );
}

function pglite(db: PGliteLike): Database {
  const queryOn =
    (on: { query: PGliteLike['query'] }): Query =>
    async (text, params) =>
      (await on.query(text, params as unknown[])).rows;
  return {
    kind: 'pglite',
    query: queryOn(db),
    transaction: (work) => rethrowingOriginal((fail) => db.transaction((tx) => work(queryOn(tx), tx).catch(fail))),
  };
}
