import { connectionGuard } from './connection-guard.js';
import type { Database, PgClientLike, PgPoolLike, Query } from './database.js';

const pgQuery =
  (client: PgClientLike): Query =>
  async (text, params) =>
    (await client.query(text, params as unknown[])).rows;

/**
 * BEGIN … COMMIT on one pg connection; ROLLBACK and the same error when work throws. Calls
 * `lost` when even ROLLBACK fails: the connection is gone (the server rolls back on its own).
 */
async function inPgTransaction<T>(
  client: PgClientLike,
  work: (query: Query, tx: unknown) => Promise<T>,
  lost: (error: unknown) => void = () => {},
): Promise<T> {
  const rollback = () => client.query('ROLLBACK').then(() => {}, lost);
  await client.query('BEGIN');
  let result: T;
  try {
    result = await work(pgQuery(client), client);
  } catch (error) {
    await rollback();
    throw error;
  }
  try {
    await client.query('COMMIT');
  } catch (error) {
    await rollback();
    throw error;
  }
  return result;
}

/**
 * A `pg` Pool (or a pool with its API). Plain statements go through `pool.query`, which
 * listens for a dropped connection itself; a transaction checks a client out, and the store
 * listens on it until it goes back (see `connectionGuard`).
 */
export function pgPool(pool: PgPoolLike): Database {
  return {
    kind: 'pg-pool',
    query: pgQuery(pool),
    async transaction(work) {
      const client = await pool.connect();
      const guard = connectionGuard(client);
      let broken: unknown;
      try {
        return await guard.run(() =>
          inPgTransaction(client, work, (error) => {
            broken = error ?? new Error('ROLLBACK failed');
          }),
        );
      } finally {
        // A connection that dropped or could not roll back must not be handed out again:
        // releasing it with an error makes the pool discard it.
        const fault = broken ?? guard.lost;
        if (fault === undefined) guard.detach();
        client.release(fault);
      }
    },
  };
}

/** One `pg` Client (or a client checked out of a Pool by the user), shared by every delivery. */
export function pgClient(client: PgClientLike): Database {
  // One connection holds one transaction at a time: a second BEGIN on it would merge two
  // deliveries into one transaction, so everything the store sends on it goes in turn.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(task: () => Promise<T>): Promise<T> => {
    const run = turn.then(task, task);
    turn = run.catch(() => {});
    return run;
  };
  const guard = connectionGuard(client);
  const query = pgQuery(client);
  return {
    kind: 'pg-client',
    query: (text, params) => inTurn(() => guard.run(() => query(text, params))),
    transaction: (work) => inTurn(() => guard.run(() => inPgTransaction(client, work))),
  };
}
