/**
 * The `tx` a transactional store (`postgresDedupStore(db, { transactional: true })`) hands
 * the handler, worked out from the client you gave it: a `pg` `PoolClient` for a `Pool`, the
 * `Client` itself for a `Client`, a `TransactionSql` for `postgres`, PGlite's `Transaction`
 * for PGlite. Type your handlers with it instead of guessing.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const handlers: WebhookHandlers<{ tx: TransactionOf<typeof pool> }> = {
 *   'article.sync': ({ article }, { tx }) => tx.query('insert into posts (id) values ($1) on conflict do nothing', [article.id]),
 * };
 * ```
 */
export type TransactionOf<Db> = Db extends { totalCount: number; connect: infer Connect }
  ? // pg's connect() has two signatures; the one that returns a promise gives the client.
    Extract<
      Awaited<Connect extends { (...args: infer _A): infer R1; (...args: infer _B): infer R2 } ? R1 | R2 : never>,
      object
    >
  : Db extends { begin: { (work: (sql: infer Tx) => never): unknown; (options: string, work: never): unknown } }
    ? Tx
    : Db extends { transaction(work: (tx: infer Tx) => Promise<unknown>): Promise<unknown> }
      ? Tx
      : Db;
