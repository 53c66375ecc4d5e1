import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type ClaimOutcome, createReceiver } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { countingStatements } from './counting-statements.js';
import { describeEachClient, freshTable, openDatabase, server } from './postgres-clients.js';

// Plain mode without ordering: the claims (and the completions) of one turn of the event loop
// share one statement; a second claim of an id in that turn goes in the next one.

afterAll(() => server.stop());

const token = 'postgres-batch-token';
const CONCURRENT = 64;

describeEachClient(
  (name) => `claims and completions of one turn, with ${name}`,
  (db) => {
    it(`claims and records ${CONCURRENT} concurrent deliveries in a few statements, and sweeps once`, async () => {
      const counted = countingStatements(db().client as object);
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
      // The first claims go at once (two statements in flight), the rest share the next ones.
      expect(counted.statements.length - sweeps.length).toBeLessThanOrEqual(4);
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
      const store = postgresDedupStore(db().client, { table: freshTable() });
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

    it('fails only the delivery whose answer Postgres cannot store, not the others it shared a statement with', async () => {
      const store = postgresDedupStore(db().client, { table: freshTable() });
      await store.claim({ deliveryId: 'creates-the-tables' });
      const good = { deliveryId: randomUUID() };
      const bad = { deliveryId: randomUUID() };
      const [goodClaim, badClaim] = await Promise.all([store.claim(good), store.claim(bad)]);
      const leaseOf = (outcome: ClaimOutcome) => (outcome as Extract<ClaimOutcome, { state: 'claimed' }>).lease;
      // A slug cut inside an emoji: a lone surrogate, which jsonb refuses.
      const settled = await Promise.allSettled([
        store.complete(good, leaseOf(goodClaim), { ok: true, published_url: 'https://x.test/fine' }),
        store.complete(bad, leaseOf(badClaim), { ok: true, published_url: 'https://x.test/\uD83D' }),
      ]);
      expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
      expect(await store.claim(good)).toEqual({
        state: 'done',
        answer: { ok: true, published_url: 'https://x.test/fine' },
      });
      expect(await store.claim(bad)).toEqual({ state: 'in-progress' });
    });

    it('deletes as many expired rows as its claims owed sweeps for, one sweep at a time', async () => {
      const table = freshTable();
      const store = postgresDedupStore(db().client, { table });
      await store.claim({ deliveryId: 'creates-the-tables' }); // claim 1 sweeps the empty table
      await db().sql(
        `INSERT INTO ${table} (id, lease, answer, expires_at)
       SELECT 'old' || g, 'gone', '{"ok":true}', now() - interval '1 hour' FROM generate_series(1, 2000) g`,
      );
      // 8 waves of 64 concurrent claims: 4 sweeps come due in each, each owing 64 rows.
      for (let wave = 0; wave < 8; wave++) {
        await Promise.all(Array.from({ length: CONCURRENT }, () => store.claim({ deliveryId: randomUUID() })));
      }
      const [{ n }] = (await db().sql(`SELECT count(*)::int AS n FROM ${table} WHERE id LIKE 'old%'`)) as [
        { n: number },
      ];
      // 64 rows per due sweep, as when each claim swept on its own: about 2000 - 64 - 7 × 256.
      expect(n).toBeLessThanOrEqual(2000 - 6 * 4 * 64);
    });

    it('answers each delivery of a failed statement 503 with the database error, and the next ones 200', async () => {
      const table = freshTable();
      const errors: unknown[] = [];
      const receiver = createReceiver({
        token,
        dedup: postgresDedupStore(db().client, { table }),
        onError: (error) => void errors.push(error),
        logger: false,
      });
      const delivery = () => signDelivery({ token, payload: articleSyncPayload() });
      expect((await receiver.handle(delivery(), {})).status).toBe(200); // creates the tables
      await db().sql(`ALTER TABLE ${table} RENAME TO ${table}_away`);
      const answers = await Promise.all([receiver.handle(delivery(), {}), receiver.handle(delivery(), {})]);
      expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
      expect(errors).toHaveLength(2);
      for (const error of errors) expect(String((error as Error).cause)).toContain(table);
      await db().sql(`ALTER TABLE ${table}_away RENAME TO ${table}`);
      expect((await receiver.handle(delivery(), {})).status).toBe(200);
    });
  },
);

describe("claims under the fake timers of a user's test", () => {
  it('still settle: the store waits for the next turn with the setImmediate it found as it loaded', async () => {
    const db = await openDatabase('PGlite');
    try {
      const store = postgresDedupStore(db.client, { table: freshTable() });
      vi.useFakeTimers(); // vitest's default fakes setImmediate too
      try {
        const outcomes = await Promise.all([store.claim({ deliveryId: 'a' }), store.claim({ deliveryId: 'b' })]);
        expect(outcomes.map((outcome) => outcome.state)).toEqual(['claimed', 'claimed']);
      } finally {
        vi.useRealTimers();
      }
    } finally {
      await db.close();
    }
  }, 30_000);
});
