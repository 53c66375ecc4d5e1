import type { ClientName } from './postgres-clients.js';

/** Runs SQL on whatever a handler got as `tx`: a pg client, a postgres.js transaction `sql`, or a PGlite transaction. */
export type TxQuery = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

type PgLike = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
type PostgresJsTx = { unsafe(text: string, params?: unknown[]): Promise<Record<string, unknown>[]> };

/**
 * Wraps a handler's `tx` the way a user's code would use it with that client, and checks it
 * is the kind the contract promises (a pg client inside BEGIN, a postgres.js `sql`, a PGlite
 * transaction).
 */
export function txQuery(name: ClientName, tx: unknown): TxQuery {
  if (name === 'postgres') {
    if (typeof tx !== 'function' || typeof (tx as Partial<PostgresJsTx>).unsafe !== 'function') {
      throw new Error('tx is not a postgres.js transaction sql');
    }
    return async (text, params = []) => Array.from(await (tx as unknown as PostgresJsTx).unsafe(text, params));
  }
  if (typeof (tx as Partial<PgLike> | undefined)?.query !== 'function')
    throw new Error(`tx has no query(): ${typeof tx}`);
  return async (text, params) => (await (tx as PgLike).query(text, params)).rows;
}
