import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe } from 'vitest';
import type { PostgresClientLike } from 'webhook-cms-receiver/postgres';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';

/**
 * The Postgres server of this test file: DATABASE_URL (CI, or the global setup) or a
 * throwaway cluster started here. Stop it in the file's afterAll.
 */
export const server: StartedPostgres = await startPostgres();
if (!server.url) console.warn(`Postgres server tests skipped (PGlite still runs): ${server.reason}`);

/** A describe block that needs a real server (several connections, other processes): skipped, saying how to run it, without one. */
export const describeWithServer = (name: string, body: () => void) =>
  server.url ? describe(name, body) : describe.skip(`${name} (skipped: ${HOW_TO_RUN_POSTGRES})`, body);

export type ServerClientName = 'pg Pool' | 'pg Client' | 'postgres';
export type ClientName = ServerClientName | 'PGlite';

/** A connected client of one kind, a way to run SQL for assertions, and how to close it. */
export interface TestDatabase {
  name: ClientName;
  client: PostgresClientLike;
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Connects a client of the named kind to the test server (PGlite: a fresh in-memory database). */
export async function openDatabase(name: ClientName, options: { max?: number } = {}): Promise<TestDatabase> {
  if (name === 'PGlite') {
    const db = await PGlite.create();
    return {
      name,
      client: db,
      sql: async (text, params) => (await db.query(text, params)).rows as never,
      close: () => db.close(),
    };
  }
  const url = server.url;
  if (!url) throw new Error(`no Postgres server: ${HOW_TO_RUN_POSTGRES}`);
  if (name === 'postgres') {
    const sql = postgres(url, { max: options.max ?? 10, onnotice: () => {}, connect_timeout: 5 });
    return {
      name,
      client: sql,
      sql: async (text, params = []) => Array.from(await sql.unsafe(text, params as never[])),
      close: () => sql.end({ timeout: 1 }),
    };
  }
  if (name === 'pg Pool') {
    const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 5000 });
    pool.on('error', () => {}); // a killed connection surfaces in the test that caused it
    return {
      name,
      client: pool,
      sql: async (text, params) => (await pool.query(text, params)).rows,
      close: () => pool.end(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  // Assertions go through a connection of their own, so they never queue behind the store's.
  const side = new pg.Client({ connectionString: url });
  await side.connect();
  return {
    name,
    client,
    sql: async (text, params) => (await side.query(text, params)).rows,
    close: async () => {
      await client.end();
      await side.end();
    },
  };
}

/** Every client kind the store accepts. */
export const ALL_CLIENTS: readonly ClientName[] = ['pg Pool', 'pg Client', 'postgres', 'PGlite'];

/**
 * A describe block per client kind, its database open for the block's tests (`db()`): PGlite
 * always, the server's clients when there is a server (else skipped, saying how to run them).
 */
export function describeEachClient(
  title: (name: ClientName) => string,
  body: (db: () => TestDatabase, name: ClientName) => void,
  clients: readonly ClientName[] = ALL_CLIENTS,
): void {
  for (const name of clients) {
    (name === 'PGlite' ? describe : describeWithServer)(title(name), () => {
      let db: TestDatabase;
      beforeAll(async () => {
        db = await openDatabase(name);
      }, 60_000);
      afterAll(() => db?.close());
      body(() => db, name);
    });
  }
}

export { freshTable } from './fresh-table.js';
