import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { storeContract } from '../stores/store-contract.js';
import { describeWithServer, freshTable, openDatabase, server, type TestDatabase } from './postgres-clients.js';

const token = 'postgres-prepared-token';

afterAll(() => server.stop());

/** What is prepared on the connection `query` runs on: pg_prepared_statements is per session. */
async function preparedOn(query: pg.Pool['query'] | pg.Client['query'], table: string) {
  const { rows } = await query(
    `SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE '%' || $1::text || ' %' ORDER BY name`,
    [table],
  );
  return rows as { name: string; statement: string }[];
}

/** One delivery through a receiver, then its duplicate: both answer as the store must. */
async function deliverTwice(store: DedupStore, ordering: boolean) {
  const receiver = createReceiver({ token, dedup: store, ordering });
  const delivery = signDelivery({ token, payload: articleSyncPayload() });
  const handlers = { 'article.sync': async () => ({ publishedUrl: 'https://x.test/p' }) };
  expect(await receiver.handle(delivery, handlers)).toEqual({
    status: 200,
    body: { ok: true, published_url: 'https://x.test/p' },
  });
  expect((await receiver.handle(delivery, handlers)).body).toEqual({
    ok: true,
    published_url: 'https://x.test/p',
    duplicate: true,
  });
}

for (const name of ['pg Pool', 'pg Client'] as const) {
  describeWithServer(`postgresDedupStore({ preparedStatements: true }) with ${name}`, () => {
    let db: TestDatabase;
    // A pool of one connection, so that the test reads the session the store prepared on.
    beforeAll(async () => {
      db = await openDatabase(name, { max: 1 });
    }, 60_000);
    afterAll(() => db?.close());
    const query = () => {
      const client = db.client as pg.Pool | pg.Client;
      return client.query.bind(client) as pg.Pool['query'];
    };

    const table = freshTable();
    storeContract(`postgresDedupStore (${name}, preparedStatements)`, ({ leaseMs, retentionMs }) =>
      postgresDedupStore(db.client, { table, leaseMs, retentionMs, preparedStatements: true }),
    );

    it('sends its statements named, prepared once per connection, in plain and transactional mode', async () => {
      const own = freshTable();
      await deliverTwice(postgresDedupStore(db.client, { table: own, preparedStatements: true }), true);
      await deliverTwice(postgresDedupStore(db.client, { table: own, preparedStatements: true }), false);
      const own2 = freshTable();
      const transactional = postgresDedupStore(db.client, {
        table: own2,
        preparedStatements: true,
        transactional: true,
      });
      await deliverTwice(transactional, true);
      const plain = await preparedOn(query(), own);
      // The sweep, the ordered and unordered claims and completions: each prepared once.
      expect(plain.map((row) => row.statement.split('\n')[0])).toHaveLength(5);
      for (const { name: statementName } of [...plain, ...(await preparedOn(query(), own2))]) {
        expect(statementName).toMatch(/^wcr_[0-9a-f]{16}$/);
      }
      expect((await preparedOn(query(), own2)).length).toBeGreaterThanOrEqual(3);
    });

    it('prepares nothing by default', async () => {
      const own = freshTable();
      await deliverTwice(postgresDedupStore(db.client, { table: own }), true);
      await deliverTwice(postgresDedupStore(db.client, { table: own, transactional: true }), true);
      expect(await preparedOn(query(), own)).toEqual([]);
      const rows = await db.sql(`SELECT count(*)::int AS n FROM ${own}`);
      expect(rows).toEqual([{ n: 2 }]);
    });
  });
}

describeWithServer('postgresDedupStore(pool, { preparedStatements: true }), as docs/stores.md shows it', () => {
  // A database of its own: the documented call uses the default table, which no other test may share.
  const database = `prepared_${randomBytes(6).toString('hex')}`;
  const urlOf = (name: string) => Object.assign(new URL(server.url!), { pathname: `/${name}` }).href;
  const admin = async (text: string) => {
    const root = new pg.Client({ connectionString: server.url });
    await root.connect();
    await root.query(text).finally(() => root.end());
  };
  beforeAll(() => admin(`CREATE DATABASE ${database}`), 60_000);
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

  it('creates the default table, answers a delivery and its duplicate, with its statements named', async () => {
    const pool = new pg.Pool({ connectionString: urlOf(database), max: 1 });
    try {
      const dedup = postgresDedupStore(pool, { preparedStatements: true });
      await deliverTwice(dedup, false);
      await deliverTwice(dedup, true);
      const prepared = await preparedOn(pool.query.bind(pool) as pg.Pool['query'], 'webhook_deliveries');
      expect(prepared.length).toBeGreaterThanOrEqual(4);
      for (const { name } of prepared) expect(name).toMatch(/^wcr_[0-9a-f]{16}$/);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM webhook_deliveries');
      expect(rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });
});

describe('postgresDedupStore preparedStatements option', () => {
  it('takes true or false only', () => {
    const client = { query: async () => ({ rows: [] }) };
    expect(() => postgresDedupStore(client, { preparedStatements: 'yes' as never })).toThrow(
      'postgresDedupStore: preparedStatements must be true or false, got yes.',
    );
    expect(() => postgresDedupStore(client, { preparedStatements: false })).not.toThrow();
  });
});
