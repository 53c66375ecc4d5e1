import type { KeptRequest, KeptRequestStore } from 'webhook-cms-receiver';
import type { Database } from './database.js';
import { sqlState } from './postgres-errors.js';
import { type Tables, tablesFor } from './table-sql.js';

const CREATION_RACES = new Set(['23505', '42P07', '42710']);
const encoder = new TextEncoder();

/**
 * The SQL that creates the table requests kept during a rotation window live in, beside the
 * deliveries table: `<table>_kept` (default `webhook_deliveries_kept`). The store creates it on
 * the first keep unless `createTable: false`; then run this in a migration. Each row is one
 * kept request as JSON (the SHA-256 of the presented token, never the token), its size, and
 * when the window ends, on the database's clock.
 *
 * @example
 * ```ts
 * import { postgresKeptTableSql } from 'webhook-cms-receiver/postgres';
 * await pool.query(postgresKeptTableSql()); // CREATE TABLE IF NOT EXISTS webhook_deliveries_kept (…)
 * ```
 */
export function postgresKeptTableSql(options: { table?: string } = {}): string {
  return `${keptTableSql(tablesFor(options.table, 'postgresKeptTableSql'))};\n`;
}

function keptTableSql(tables: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${keptTable(tables)} (
  id text PRIMARY KEY,
  token_sha256 text NOT NULL,
  request text NOT NULL,
  size integer NOT NULL,
  expires_at timestamptz NOT NULL
)`;
}

function keptTable(tables: Tables): string {
  return `${tables.deliveries}_kept`;
}

/**
 * Requests kept during a rotation window, in one table every receiver on the database shares.
 * A keep locks the table for its insert, so the count and byte bounds hold across instances;
 * a request is taken by exactly one instance (`DELETE … RETURNING`); rows expire on the
 * database's clock when the window ends.
 */
export function postgresKeptRequests(
  db: Database,
  tables: Tables,
  createTable: boolean,
  now: () => number = Date.now,
): KeptRequestStore {
  const table = keptTable(tables);
  let created: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (!createTable) return Promise.resolve();
    created ??= create(db, tables).catch((error: unknown) => {
      created = undefined;
      throw error;
    });
    return created;
  };
  return {
    async keep(request, limits) {
      await ready();
      const json = JSON.stringify(request);
      const size = encoder.encode(json).byteLength;
      const ttl = Math.max(1, Math.ceil(limits.until - now()));
      return db.transaction(async (query) => {
        await query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`, []);
        const rows = await query(
          `INSERT INTO ${table} (id, token_sha256, request, size, expires_at)
SELECT $1::text, $7::text, $2::text, $3::integer, now() + $6::double precision * interval '1 millisecond'
WHERE (SELECT count(*) FROM ${table} WHERE expires_at > now()) < $4::bigint
  AND (SELECT coalesce(sum(size), 0) FROM ${table} WHERE expires_at > now()) + $3::integer <= $5::bigint
RETURNING id`,
          [request.id, json, size, limits.maxCount, limits.maxBytes, ttl, request.tokenSha256],
        );
        return rows.length === 1;
      });
    },
    async list() {
      await ready();
      const rows = await db.query(`SELECT id, token_sha256 FROM ${table} WHERE expires_at > now()`, []);
      return rows.map((row) => ({ id: String(row.id), tokenSha256: String(row.token_sha256) }));
    },
    async take(id) {
      await ready();
      const rows = await db.query(`DELETE FROM ${table} WHERE id = $1::text AND expires_at > now() RETURNING request`, [
        id,
      ]);
      return rows.length === 1 ? (JSON.parse(String(rows[0]!.request)) as KeptRequest) : undefined;
    },
    async clear() {
      await ready();
      const rows = await db.query(
        `WITH dropped AS (DELETE FROM ${table} RETURNING expires_at) SELECT count(*)::int AS count FROM dropped`,
        [],
      );
      return Number(rows[0]?.count ?? 0);
    },
  };
}

async function create(db: Database, tables: Tables): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.query(keptTableSql(tables), []);
      return;
    } catch (error) {
      const code = sqlState(error);
      if (attempt < 3 && code !== undefined && CREATION_RACES.has(code)) continue;
      throw error;
    }
  }
}
