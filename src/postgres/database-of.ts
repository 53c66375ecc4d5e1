import type { Database, PGliteLike, PgClientLike, PgPoolLike, PostgresJsLike } from './database.js';
import { type PgOptions, pgClient, pgPool } from './pg-database.js';
import { pglite } from './pglite-database.js';
import { postgresJs } from './postgres-js-database.js';

/**
 * Recognises the client by its shape, never by importing its package: `postgres`'s `sql` is a
 * function with `unsafe` and `begin`; PGlite has `transaction` and `exec`; a `pg` Pool counts
 * its connections; anything else with `query` is taken as one `pg` connection. `pg` applies
 * to those two only: postgres.js prepares on its own, PGlite runs in-process.
 */
export function databaseOf(client: unknown, label: string, pg: PgOptions = { prepare: false }): Database {
  const c = client as Record<string, unknown> | null | undefined;
  const fn = client as Partial<PostgresJsLike>;
  if (typeof client === 'function' && typeof fn.unsafe === 'function' && typeof fn.begin === 'function') {
    return postgresJs(client as PostgresJsLike);
  }
  if (c && typeof c === 'object' && typeof c.query === 'function') {
    if (typeof c.transaction === 'function' && typeof c.exec === 'function') return pglite(client as PGliteLike);
    if (typeof c.connect === 'function' && 'totalCount' in c && 'idleCount' in c)
      return pgPool(client as PgPoolLike, pg);
    return pgClient(client as PgClientLike, pg);
  }
  throw new TypeError(
    `${label}: expected a database client: a \`pg\` Pool or Client (new Pool({ connectionString })), a \`postgres\` ` +
      `sql instance (postgres(url)) or a PGlite instance; got ${client === null ? 'null' : typeof client}.`,
  );
}
