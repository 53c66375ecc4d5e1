import type { Database, PostgresJsLike, PostgresJsTransactionLike, Query } from './database.js';
import { rethrowingOriginal } from './rethrow-original.js';

// `prepare: true` only asks: postgres.js still skips preparing when the client was created
// with `prepare: false` (as for PgBouncer in transaction mode).
const queryOn =
  (on: PostgresJsTransactionLike): Query =>
  async (text, params) =>
    Array.from(await on.unsafe(text, params as unknown[], { prepare: true }));

/** Never settles: what the transaction callback returns once its connection is gone. */
const UNSETTLED = new Promise<never>(() => {});

/**
 * The `postgres` (postgres.js) client. `sql.begin` rejects as soon as the transaction's
 * connection closes (a restart, `pg_terminate_backend`), even while the handler still runs;
 * that rejection is the store's failure, a 503. But when the callback settles afterwards,
 * postgres.js sends ROLLBACK or COMMIT on the closed connection, and its write throws from a
 * timer: an uncaught TypeError that ends the process (postgres 3.4). So once the connection
 * is gone, or a statement failed because it is going (a FATAL error, a `CONNECTION_*` code),
 * the callback is left unsettled and sends nothing more; nothing holds it, so it is collected.
 */
export function postgresJs(sql: PostgresJsLike): Database {
  return {
    kind: 'postgres',
    query: queryOn(sql),
    transaction: (work) =>
      rethrowingOriginal((fail) => {
        let gone = false;
        const whileOpen =
          (query: Query): Query =>
          (text, params) =>
            gone ? Promise.reject(connectionGone()) : query(text, params).catch(noteLoss);
        const noteLoss = (error: unknown): never => {
          if (isConnectionLoss(error)) gone = true;
          throw error;
        };
        const callback = (tx: PostgresJsTransactionLike) =>
          work(whileOpen(queryOn(tx)), tx).then(
            (result) => (gone ? UNSETTLED : result),
            (error: unknown) => (gone ? UNSETTLED : fail(error)),
          );
        return sql.begin(callback).finally(() => {
          gone = true;
        });
      }),
  };
}

/** An error that means the connection is closed or closing: postgres.js's own, or the server's FATAL. */
function isConnectionLoss(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return (typeof code === 'string' && code.startsWith('CONNECTION_')) || severity === 'FATAL' || severity === 'PANIC';
}

const connectionGone = () =>
  new Error(
    'postgresDedupStore: the transaction ended before the delivery was recorded (its connection closed); nothing ' +
      'was committed.',
  );
