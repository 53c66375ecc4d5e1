import { randomUUID } from 'node:crypto';
import { afterAll, expect, it, vi } from 'vitest';
import { type ClaimOutcome, createReceiver, type DedupStore } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { countingStatements } from './counting-statements.js';
import { describeEachClient, freshTable, server, type TestDatabase } from './postgres-clients.js';

// The store's sweep of expired rows: a statement of its own on the first claim and then on
// every 16th (SWEEP_EVERY), deleting up to 64 rows (SWEEP_ROWS) from each table.
const SWEEP_EVERY = 16;
const SWEEP_ROWS = 64;
const token = 'postgres-sweep-token';

afterAll(() => server.stop());

const leaseOf = (outcome: ClaimOutcome): string => {
  if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(outcome)}`);
  return outcome.lease;
};

/** `count` expired rows in both tables, an hour past their expiry, written directly. */
async function expiredRows(db: TestDatabase, table: string, count: number, prefix = 'old'): Promise<void> {
  await db.sql(
    `INSERT INTO ${table} (id, lease, answer, expires_at)
     SELECT $1::text || g, 'gone', '{"ok":true}', now() - interval '1 hour' FROM generate_series(1, $2::int) g`,
    [prefix, count],
  );
  await db.sql(
    `INSERT INTO ${table}_articles (article_id, newest, holder, holder_expires_at, expires_at)
     SELECT $1::text || g, 1, NULL, NULL, now() - interval '1 hour' FROM generate_series(1, $2::int) g`,
    [prefix, count],
  );
}

const countOf = async (db: TestDatabase, table: string) =>
  Number((await db.sql(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

/** A claim and its completion, as a delivery that succeeds does them. */
async function deliver(store: DedupStore, deliveryId = randomUUID()): Promise<void> {
  const claim = { deliveryId, order: { articleId: deliveryId, timestamp: 1 } };
  await store.complete(claim, leaseOf(await store.claim(claim)), { ok: true });
}

describeEachClient(
  (name) => `the sweep of expired rows, with ${name}`,
  (db) => {
    it('sweeps on the first claim and every 16th after it, more rows than 16 claims add', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table });
      await deliver(store); // claim 1 sweeps an empty table and creates it
      await expiredRows(db(), table, SWEEP_ROWS + 10);
      for (let i = 2; i <= SWEEP_EVERY; i++) await deliver(store);
      // Claims 2 to 16 leave expired rows alone: no claim statement deletes anything.
      expect(await countOf(db(), table)).toBe(SWEEP_EVERY + SWEEP_ROWS + 10);
      await deliver(store); // claim 17
      expect(await countOf(db(), table)).toBe(SWEEP_EVERY + 1 + 10);
      expect(await countOf(db(), `${table}_articles`)).toBe(SWEEP_EVERY + 1 + 10);
      for (let i = 18; i <= 2 * SWEEP_EVERY + 1; i++) await deliver(store); // claim 33 sweeps the rest
      expect(await countOf(db(), table)).toBe(2 * SWEEP_EVERY + 1);
      const left = await db().sql(`SELECT count(*)::int AS n FROM ${table}_articles WHERE article_id LIKE 'old%'`);
      expect(left[0]!.n).toBe(0);
    });

    it('never sweeps a live row: a held article or a delivery inside its retention stays', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table });
      const running = { deliveryId: randomUUID(), order: { articleId: 'held', timestamp: 1 } };
      leaseOf(await store.claim(running)); // claim 1: the sweep finds nothing
      await deliver(store);
      // An article whose mark expired while a delivery still holds it.
      await db().sql(
        `UPDATE ${table}_articles SET expires_at = now() - interval '1 hour', holder_expires_at = now() + interval '1 hour'
       WHERE article_id = 'held'`,
      );
      await expiredRows(db(), table, 3);
      const fresh = postgresDedupStore(db().client, { table }); // its first claim sweeps
      await deliver(fresh);
      const ids = await db().sql(`SELECT id FROM ${table} WHERE id LIKE 'old%'`);
      expect(ids).toEqual([]);
      expect(await countOf(db(), table)).toBe(3);
      const articles = await db().sql(`SELECT article_id FROM ${table}_articles WHERE article_id = 'held'`);
      expect(articles).toEqual([{ article_id: 'held' }]);
    });

    it('sweeps in transactional mode too, before the transaction', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table, transactional: true });
      const receiver = createReceiver({ token, dedup: store, ordering: true });
      const run = () => receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {});
      expect((await run()).status).toBe(200); // claim 1 creates the tables
      await expiredRows(db(), table, 20);
      for (let i = 2; i <= SWEEP_EVERY; i++) expect((await run()).status).toBe(200);
      expect(await countOf(db(), table)).toBe(SWEEP_EVERY + 20);
      expect((await run()).status).toBe(200);
      expect(await countOf(db(), table)).toBe(SWEEP_EVERY + 1);
      expect(await countOf(db(), `${table}_articles`)).toBe(SWEEP_EVERY + 1);
    });

    it('sends the sweep as one statement of its own, on sweeping claims only', async () => {
      const counted = countingStatements(db().client as object);
      const store = postgresDedupStore(counted.client as PostgresClientLike, { table: freshTable() });
      await deliver(store); // the first use checks and creates the tables
      for (let i = 2; i <= SWEEP_EVERY + 1; i++) {
        counted.statements.length = 0;
        await store.claim({ deliveryId: randomUUID() });
        expect(counted.statements, `claim ${i}`).toHaveLength(i === SWEEP_EVERY + 1 ? 2 : 1);
      }
    });

    it('reports a failing sweep to onError and still answers the delivery (plain mode)', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table });
      await deliver(store); // claim 1: creates the tables
      await refuseDeletes(db(), table);
      await expiredRows(db(), table, 2);
      for (let i = 2; i <= SWEEP_EVERY; i++) await deliver(store);
      const onError = vi.fn();
      const receiver = createReceiver({ token, dedup: store, onError });
      const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), {});
      expect(answer.status).toBe(200);
      expect(onError).toHaveBeenCalledTimes(1);
      expect(String(onError.mock.calls[0]![0])).toMatch(/could not sweep expired rows: .*no deletes here/);
    });

    it('answers 503 with nothing claimed when the sweep fails (transactional mode)', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table, transactional: true });
      const onError = vi.fn();
      const receiver = createReceiver({ token, dedup: store, onError });
      const delivery = () => signDelivery({ token, payload: articleSyncPayload() });
      expect((await receiver.handle(delivery(), {})).status).toBe(200); // claim 1: creates the tables
      await refuseDeletes(db(), table);
      await expiredRows(db(), table, 2);
      for (let i = 2; i <= SWEEP_EVERY; i++) expect((await receiver.handle(delivery(), {})).status).toBe(200);
      const failing = delivery();
      expect((await receiver.handle(failing, {})).status).toBe(503);
      expect(String(onError.mock.calls.at(-1)?.[0]?.cause ?? onError.mock.calls.at(-1)?.[0])).toMatch(
        /no deletes here/,
      );
      expect(await countOf(db(), table)).toBe(SWEEP_EVERY + 2);
      // The retry, 15 claims before the next sweep, goes through.
      expect((await receiver.handle(failing, {})).status).toBe(200);
    });
  },
);

/** A trigger that fails every delete from the deliveries table, as a missing DELETE grant would. */
async function refuseDeletes(db: TestDatabase, table: string): Promise<void> {
  await db.sql(
    `CREATE FUNCTION ${table}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'no deletes here'; END $$`,
  );
  await db.sql(
    `CREATE TRIGGER ${table}_refuse BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_refuse()`,
  );
}
