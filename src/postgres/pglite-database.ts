import type { Database, PGliteLike, Query } from './database.js';
import { rethrowingOriginal } from './rethrow-original.js';

/**
 * A PGlite instance (`@electric-sql/pglite`). Its own `transaction` runs BEGIN … COMMIT and
 * rolls back when the callback throws; `rethrowingOriginal` keeps the callback's error.
 */
export function pglite(db: PGliteLike): Database {
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
