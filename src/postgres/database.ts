/** A row as the clients return it: column name to value. */
export type Row = Record<string, unknown>;

/**
 * Runs one parameterised statement and gives its rows. `prepared` marks one of the store's
 * own statements of a delivery, which a `pg` client of a store with `preparedStatements: true`
 * sends as a named prepared statement; every other client, and every other statement, ignores it.
 */
export type Query = (text: string, params: readonly unknown[], prepared?: boolean) => Promise<Row[]>;

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
