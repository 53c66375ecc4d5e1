// The one database of the endpoint: the sites and their tokens, each site's articles and the
// receiver's dedup rows. PGlite (Postgres compiled to WebAssembly, one folder on disk) by
// default, a Postgres server when DATABASE_URL is set. Same SQL for both.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sites (
  id text PRIMARY KEY,
  profile_id text NOT NULL,
  domain text NOT NULL,
  -- The token is the HMAC key, so it is stored, not only its hash: see the README on protecting it.
  token text NOT NULL,
  token_sha256 text NOT NULL UNIQUE,
  -- During a rotation: the token before, still accepted until finish-rotation.
  previous_token text,
  previous_token_sha256 text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS site_articles (
  site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  article_id text NOT NULL,
  slug text NOT NULL,
  title text NOT NULL,
  status text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, article_id)
);
`;

/**
 * Opens the database (Postgres at `databaseUrl`, else PGlite in `dataDir`) and creates the
 * tables. `client` is what `postgresDedupStore` takes; `query` returns rows.
 *
 * @example
 * const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: './data' });
 * const rows = await db.query('SELECT id FROM sites');
 *
 * @param {{ databaseUrl?: string, dataDir?: string, owner?: 'server' | 'admin' }} [options]
 */
export async function openDatabase({ databaseUrl, dataDir = './data', owner = 'server' } = {}) {
  const db = databaseUrl ? await openPostgres(databaseUrl) : await openPGlite(dataDir, owner);
  await db.exec(SCHEMA);
  return db;
}

async function openPGlite(dataDir, owner) {
  // PGlite is a database inside one process: a second process opening the same folder would
  // corrupt it. The server leaves its pid here; the admin script refuses while it runs.
  const lock = join(dataDir, 'multi-site.pid');
  const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
  if (holder && holder !== process.pid && isRunning(holder)) {
    throw new Error(
      `The server (pid ${holder}) has the PGlite database in ${dataDir} open, and PGlite allows one process. ` +
        'Stop it (Ctrl-C), run this command, then start it again; or set DATABASE_URL to a Postgres server, ' +
        'where the admin script works while the server runs.',
    );
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  if (owner === 'server') await writeFile(lock, String(process.pid));
  return {
    client: db,
    storage: `PGlite in ${dataDir}`,
    exec: (sql) => db.exec(sql),
    query: async (sql, params) => (await db.query(sql, params)).rows,
    close: async () => {
      await db.close();
      if (owner === 'server') await rm(lock, { force: true });
    },
  };
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function openPostgres(connectionString) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString });
  // pg asks for this: an idle connection the server drops must not end the process.
  pool.on('error', (error) => console.error(`Postgres connection lost: ${error.message}`));
  return {
    client: pool,
    storage: 'Postgres (DATABASE_URL)',
    exec: (sql) => pool.query(sql),
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    close: () => pool.end(),
  };
}
