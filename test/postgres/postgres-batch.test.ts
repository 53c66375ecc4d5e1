import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimOutcome, createReceiver } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { countingStatements } from './counting-statements.js';
import {
  type ClientName,
  describeWithServer,
  freshTable,
  openDatabase,
  server,
  type TestDatabase,
} from './postgres-clients.js';

// Plain mode without ordering: the claims (and the completions) of one turn of the event loop
// share one statement; a second claim of an id in that turn goes in the next one.

afterAll(() => server.stop());

const token = 'postgres-batch-token';
const CONCURRENT = 64;

const clients: ClientName[] = ['pg Pool', 'postgres', 'PGlite'];
for (const name of clients) {
  (name === 'PGlite' ? describe : describeWithServer)(`claims and completions of one turn, with ${name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await openDatabase(name);
    }, 60_000);
    afterAll(() => db?.close());

    it(`claims and records ${CONCURRENT} deliveries of one turn in one statement each, and sweeps once`, async () => {
      const counted = countingStatements(db.client as object);
      const table = freshTable();
      const store = postgresDedupStore(counted.client as PostgresClientLike, { table });
      await store.claim({ deliveryId: 'creates-the-tables' });
      counted.statements.length = 0;
      const claims = Array.from({ length: CONCURRENT }, () => ({ deliveryId: randomUUID() }));
      const outcomes = await Promise.all(claims.map((claim) => store.claim(claim)));
      const leases = outcomes.map((outcome) => (outcome as Extract<ClaimOutcome, { state: 'claimed' }>).lease);
      expect(outcomes.every((outcome) => outcome.state === 'claimed')).toBe(true);
      expect(new Set(leases).size).toBe(CONCURRENT);
      const sweeps = counted.statements.filter((statement) => statement.startsWith('WITH swept'));
      expect(counted.statements.length - sweeps.length).toBe(1);
      expect(sweeps.length).toBe(1); // 4 of these claims were due one; one runs at a time
      counted.statements.length = 0;
      const recorded = await Promise.all(
        claims.map((claim, k) => store.complete(claim, leases[k]!, { ok: true, published_url: `https://x.test/${k}` })),
      );
      expect(recorded.every((done) => done === true)).toBe(true);
      expect(counted.statements).toHaveLength(1);
      for (const [k, claim] of claims.entries()) {
        expect(await store.claim(claim)).toEqual({
          state: 'done',
          answer: { ok: true, published_url: `https://x.test/${k}` },
        });
      }
    });

    it('claims an id once when two claims of it come in one turn, and records only the winning lease', async () => {
      const store = postgresDedupStore(db.client, { table: freshTable() });
      await store.claim({ deliveryId: 'creates-the-tables' });
      const claim = { deliveryId: randomUUID() };
      const [first, second, other] = await Promise.all([
        store.claim(claim),
        store.claim(claim),
        store.claim({ deliveryId: randomUUID() }),
      ]);
      // Separate statements, which may reach Postgres in either order: exactly one wins.
      const won = [first, second].filter((outcome) => outcome.state === 'claimed');
      expect(won).toHaveLength(1);
      expect([first, second]).toContainEqual({ state: 'in-progress' });
      expect(other).toMatchObject({ state: 'claimed' });
      const lease = (won[0] as Extract<ClaimOutcome, { state: 'claimed' }>).lease;
      const [stolen, own] = await Promise.all([
        store.complete(claim, randomUUID(), { ok: true, published_url: 'https://x.test/stolen' }),
        store.complete(claim, lease, { ok: true }),
      ]);
      expect([stolen, own]).toEqual([false, true]);
      expect(await store.claim(claim)).toEqual({ state: 'done', answer: { ok: true } });
    });

    it('answers each delivery of a failed statement 503 with the database error, and the next ones 200', async () => {
      const table = freshTable();
      const errors: unknown[] = [];
      const receiver = createReceiver({
        token,
        dedup: postgresDedupStore(db.client, { table }),
        onError: (error) => void errors.push(error),
        logger: false,
      });
      const delivery = () => signDelivery({ token, payload: articleSyncPayload() });
      expect((await receiver.handle(delivery(), {})).status).toBe(200); // creates the tables
      await db.sql(`ALTER TABLE ${table} RENAME TO ${table}_away`);
      const answers = await Promise.all([receiver.handle(delivery(), {}), receiver.handle(delivery(), {})]);
      expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
      expect(errors).toHaveLength(2);
      for (const error of errors) expect(String((error as Error).cause)).toContain(table);
      await db.sql(`ALTER TABLE ${table}_away RENAME TO ${table}`);
      expect((await receiver.handle(delivery(), {})).status).toBe(200);
    });
  });
}
