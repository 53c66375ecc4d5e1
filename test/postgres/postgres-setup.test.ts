import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReceiver, type DedupStore } from 'webhook-cms-receiver';
import {
  POSTGRES_DEDUP_TABLE_SQL,
  type PostgresClientLike,
  postgresDedupStore,
  postgresDedupTableSql,
} from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { countingStatements } from './counting-statements.js';

const token = 'postgres-setup-token';
const freshTable = () => `wcr_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

describe('postgresDedupStore: setup and errors', () => {
  let lite: { client: PGlite };
  beforeAll(async () => {
    lite = { client: await PGlite.create() };
  }, 60_000);
  afterAll(() => lite?.client.close());

  it('documents its tables as SQL a migration can run, after which createTable: false works', async () => {
    expect(POSTGRES_DEDUP_TABLE_SQL).toBe(postgresDedupTableSql());
    expect(POSTGRES_DEDUP_TABLE_SQL).toContain('CREATE TABLE IF NOT EXISTS webhook_deliveries (');
    const table = freshTable();
    await lite.client.exec(postgresDedupTableSql({ table }));
    await lite.client.exec(postgresDedupTableSql({ table })); // safe to run twice
    const counted = countingStatements(lite.client as object);
    const store = postgresDedupStore(counted.client as PostgresClientLike, { table, createTable: false });
    expect((await store.claim({ deliveryId: 'migrated' })).state).toBe('claimed');
    // The claim and the sweep a store's first claim runs; no check for the tables.
    expect(counted.statements).toHaveLength(2);
    expect(counted.statements.filter((text) => /to_regclass|CREATE/.test(text))).toEqual([]);
  });

  it('with createTable: false and no table, fails naming the migration to run', async () => {
    const store = postgresDedupStore(lite.client, { table: freshTable(), createTable: false });
    await expect(store.claim({ deliveryId: 'x' })).rejects.toThrow(
      /do not exist: with createTable: false, run postgresDedupTableSql/,
    );
    const receiver = createReceiver({ token, dedup: store, onError: () => {} });
    expect(await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {})).toEqual({
      status: 503,
      body: { error: 'Dedup store unavailable' },
    });
  });

  it('refuses what is not a database client, and a table name that is not a plain SQL name', () => {
    expect(() => postgresDedupStore({} as never)).toThrow(/expected a database client: a `pg` Pool or Client/);
    expect(() => postgresDedupStore(lite.client, { table: 'deliveries; DROP TABLE users' })).toThrow(/plain SQL name/);
    expect(() => postgresDedupStore(lite.client, { table: 'a'.repeat(43) })).toThrow(/at most 42 characters/);
    expect(() => postgresDedupStore(lite.client, { leaseMs: 0 })).toThrow(/leaseMs must be a positive number/);
    expect(() => postgresDedupStore(lite.client, { transactional: 'yes' as never })).toThrow(
      /transactional must be true/,
    );
    expect(() => postgresDedupStore(lite.client, { table: 'webhooks.deliveries' })).not.toThrow();
  });

  it('answers 503 without running the handler while the database is unreachable', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const store: DedupStore = postgresDedupStore(pool);
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: store, onError });
    const handler = vi.fn();
    const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {
      'article.sync': handler,
    });
    expect(answer).toEqual({ status: 503, body: { error: 'Dedup store unavailable' } });
    expect(handler).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(1);
    await pool.end();
  });
});
