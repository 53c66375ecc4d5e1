import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresLedger } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { startPostgres } from '../setup/postgres.js';
import { freePort } from '../setup/services.js';
import { freshTable } from './fresh-table.js';

const TOKEN = 'ledger-test-token';

/** A receiver on `ledger` whose handler counts, and whose `warn` lines are kept. */
function receiverOn(ledger: ReturnType<typeof postgresLedger>) {
  const warnings: string[] = [];
  let handled = 0;
  const handlers: WebhookHandlers = {
    'article.sync': async () => {
      handled++;
    },
  };
  const receiver = createReceiver({
    token: TOKEN,
    ledger,
    logger: { warn: (...args: unknown[]) => warnings.push(String(args[0])), error: () => {} },
  });
  const deliver = async () => {
    const { headers, body } = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
    return (await receiver.handle({ headers, body }, handlers)).status;
  };
  return { warnings, deliver, handled: () => handled };
}

/** A client of each kind whose database is gone: nothing listens on the port, or PGlite was closed. */
const GONE: Array<[string, () => Promise<{ client: PostgresClientLike; close(): Promise<unknown> }>]> = [
  [
    'pg Pool',
    async () => {
      const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/none` });
      pool.on('error', () => {});
      return { client: pool, close: () => pool.end() };
    },
  ],
  [
    'postgres',
    async () => {
      const sql = postgres(`postgres://postgres@127.0.0.1:${await freePort()}/none`, { connect_timeout: 2 });
      return { client: sql, close: () => sql.end({ timeout: 1 }) };
    },
  ],
  [
    'PGlite',
    async () => {
      const db = await PGlite.create();
      await db.close();
      return { client: db, close: async () => {} };
    },
  ],
];

describe.each(GONE)('postgresLedger on %s with its database gone', (_name, open) => {
  it('answers every delivery as without a ledger, and reports the failed writes in a warn line', async () => {
    const { client, close } = await open();
    const ledger = postgresLedger(client, { table: freshTable('ledger') });
    const { warnings, deliver, handled } = receiverOn(ledger);
    expect([await deliver(), await deliver(), await deliver()]).toEqual([200, 200, 200]);
    expect(handled()).toBe(3);
    await ledger.flush();
    expect(warnings.some((line) => /ledger/.test(line) && /failed/.test(line))).toBe(true);
    await expect(ledger.list()).rejects.toThrow();
    await close();
    // PGlite's start (WebAssembly) takes seconds on a loaded machine.
  }, 60_000);
});

/** `pg_ctl` of a throwaway cluster started here, as the user the cluster runs as. */
function pgCtl(dataDir: string, args: string[]) {
  const opts = readFileSync(join(dataDir, 'postmaster.opts'), 'utf8');
  const bin = dirname(opts.split(' ')[0]!);
  const owner = statSync(dataDir).uid;
  const command = [join(bin, 'pg_ctl'), '-D', dataDir, ...args];
  const result =
    userInfo().uid === 0 && owner !== 0
      ? spawnSync('runuser', ['-u', uidName(owner), '--', ...command], { encoding: 'utf8' })
      : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pg_ctl ${args[0]} failed: ${result.stderr || result.stdout}`);
  return opts;
}

function uidName(uid: number): string {
  return spawnSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).stdout.trim();
}

// Restarting a server other test files share (CI's DATABASE_URL) would fail them: only a cluster of our own.
const own = process.env.DATABASE_URL ? undefined : await startPostgres();
afterAll(() => own?.stop());

(own?.url ? describe : describe.skip)('postgresLedger across a Postgres restart', () => {
  it('keeps answering while Postgres is down, and writes the buffered rows once it is back', async () => {
    const pool = new pg.Pool({ connectionString: own!.url, connectionTimeoutMillis: 2000 });
    pool.on('error', () => {});
    const ledger = postgresLedger(pool, { table: freshTable('ledger') });
    const { warnings, deliver, handled } = receiverOn(ledger);
    expect(await deliver()).toBe(200);
    await ledger.flush();
    expect((await ledger.list()).rows).toHaveLength(1);

    const [{ data_directory: dataDir }] = (await pool.query('SHOW data_directory')).rows;
    // Fast, not immediate: the test cluster runs with synchronous_commit=off, so a crash would
    // lose the row committed just before, which is the cluster's setting, not the ledger's loss.
    const opts = pgCtl(dataDir, ['-m', 'fast', 'stop']);
    expect([await deliver(), await deliver()]).toEqual([200, 200]);
    await ledger.flush();
    expect(warnings.some((line) => /failed/.test(line))).toBe(true);

    // The same command line it ran with (port, socket directory, settings).
    const settings = [...opts.matchAll(/"([^"]*)"/g)].map((m) => m[1]!).filter((_, i) => i >= 2);
    pgCtl(dataDir, ['-o', settings.join(' '), '-l', join(dirname(dataDir), 'server.log'), '-w', 'start']);
    expect(await deliver()).toBe(200);
    // The pool may hand out a connection the restart closed once: each flush tries once.
    let rows: Awaited<ReturnType<typeof ledger.list>>['rows'] = [];
    for (let attempt = 0; attempt < 20 && rows.length < 4; attempt++) {
      await ledger.flush();
      rows = (await ledger.list().catch(() => ({ rows: [] }))).rows;
      if (rows.length < 4) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(rows).toHaveLength(4);
    expect(rows.every((row) => row.status === 200 && row.copy === 1)).toBe(true);
    expect(handled()).toBe(4);
    await pool.end();
  }, 60_000);
});
