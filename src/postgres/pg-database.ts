import { connectionGuard } from './connection-guard.js';
import type { Database, PgClientLike, PgPoolLike, Query, Row } from './database.js';
import { statementName } from './statement-names.js';

/** `pg`'s query config: with a `name`, Postgres parses and plans the text once per connection. */
type NamedQuery = (config: { name: string; text: string; values: unknown[] }) => Promise<{ rows: Row[] }>;

/** How the store's `pg` statements go out. */
export interface PgOptions {
  /** Send the statements marked `prepared` as named prepared statements (`preparedStatements: true`). */
  prepare: boolean;
}

/** The store's options, with the names its statements got so far (one map per store). */
type Sending = PgOptions & { names: Map<string, string> };
const sending = (options: PgOptions): Sending => ({ ...options, names: new Map() });

const pgQuery = (client: PgClientLike, { prepare, names }: Sending): Query => {
  if (!prepare) return async (text, params) => (await client.query(text, params as unknown[])).rows;
  const named = client.query as unknown as NamedQuery;
  return async (text, params, prepared) => {
    if (!prepared) return (await client.query(text, params as unknown[])).rows;
    let name = names.get(text);
    if (name === undefined) names.set(text, (name = statementName(text)));
    return (await named.call(client, { name, text, values: params as unknown[] })).rows;
  };
};

/**
 * BEGIN … COMMIT on one pg connection; ROLLBACK and the same error when work throws. Calls
 * `lost` when even ROLLBACK fails: the connection is gone (the server rolls back on its own).
 */
async function inPgTransaction<T>(
  client: PgClientLike,
  options: Sending,
  work: (query: Query, tx: unknown) => Promise<T>,
  lost: (error: unknown) => void = () => {},
): Promise<T> {
  const rollback = () => client.query('ROLLBACK').then(() => {}, lost);
  await client.query('BEGIN');
  let result: T;
  try {
    result = await work(pgQuery(client, options), client);
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
export function pgPool(pool: PgPoolLike, given: PgOptions): Database {
  const options = sending(given);
  return {
    kind: 'pg-pool',
    query: pgQuery(pool, options),
    async transaction(work) {
      const client = await pool.connect();
      const guard = connectionGuard(client);
      let broken: unknown;
      try {
        return await guard.run(() =>
          inPgTransaction(client, options, work, (error) => {
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
export function pgClient(client: PgClientLike, given: PgOptions): Database {
  const options = sending(given);
  // One connection holds one transaction at a time: a second BEGIN on it would merge two
  // deliveries into one transaction, so everything the store sends on it goes in turn.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(task: () => Promise<T>): Promise<T> => {
    const run = turn.then(task, task);
    turn = run.catch(() => {});
    return run;
  };
  const guard = connectionGuard(client);
  const query = pgQuery(client, options);
  return {
    kind: 'pg-client',
    query: (text, params, prepared) => inTurn(() => guard.run(() => query(text, params, prepared))),
    transaction: (work) => inTurn(() => guard.run(() => inPgTransaction(client, options, work))),
  };
}
