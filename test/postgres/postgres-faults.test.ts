import { randomUUID } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresDedupStore, postgresDedupTableSql } from 'webhook-cms-receiver/postgres';
import {
  expectRetryRunsOnce,
  FAULT_TOKEN,
  gate,
  syncDelivery,
  UNAVAILABLE,
  waitUntil,
  watchForCrashes,
} from '../stores/fault-kit.js';
import { describeWithServer, freshTable, type ServerClientName, server } from './postgres-clients.js';
import { txQuery } from './transaction-handle.js';

afterAll(() => server.stop());

/**
 * Opens a client the way a careless user would: no `'error'` listener on a `pg` Client or
 * Pool. Whatever the store's own connections do when the database drops them must not end
 * the process.
 */
async function bare(name: ServerClientName): Promise<{ client: PostgresClientLike; close(): Promise<void> }> {
  const url = server.url!;
  if (name === 'postgres') {
    const sql = postgres(url, { max: 4, onnotice: () => {}, connect_timeout: 5 });
    return { client: sql, close: () => sql.end({ timeout: 1 }) };
  }
  if (name === 'pg Pool') {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    return { client: pool, close: () => pool.end() };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { client, close: () => client.end().catch(() => {}) };
}

/** Plain and transactional; with the `pg` clients, also with `preparedStatements: true`. */
const modes = (name: ServerClientName): [boolean, boolean][] =>
  name === 'postgres'
    ? [
        [false, false],
        [true, false],
      ]
    : [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ];

describeWithServer('store faults: the database drops the store’s connection (contract v3)', () => {
  watchForCrashes();
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: server.url });
    admin.on('error', () => {});
    await admin.connect();
  });
  afterAll(() => admin?.end());

  const sql = async (text: string, params: unknown[] = []) => (await admin.query(text, params)).rows;
  const newTables = async () => {
    const table = freshTable();
    const effects = freshTable('effects');
    await sql(postgresDedupTableSql({ table }));
    await sql(`CREATE TABLE ${effects} (delivery text NOT NULL)`);
    return { table, effects };
  };
  const count = async (text: string) => Number((await sql(`SELECT count(*) AS n FROM ${text}`))[0]!.n);

  const names: ServerClientName[] = ['pg Pool', 'pg Client', 'postgres'];
  for (const name of names) {
    for (const [transactional, preparedStatements] of modes(name)) {
      const mode = `${transactional ? 'transactional' : 'plain'}${preparedStatements ? ', preparedStatements' : ''}`;
      it(`${name}, ${mode}: a backend terminated mid-claim → 503, the host lives, the retry runs once`, async () => {
        const { table } = await newTables();
        const opened = [await bare(name)];
        const receiverOn = (client: PostgresClientLike) =>
          createReceiver({
            token: FAULT_TOKEN,
            dedup: postgresDedupStore(client, { table, transactional, preparedStatements }),
            onError: () => {},
          });
        let runs = 0;
        const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
        const id = randomUUID();
        const delivery = syncDelivery(id);
        const receiver = receiverOn(opened[0]!.client);
        // A store's first claim also sweeps expired rows: done before the lock, so that the
        // backend found waiting on it below is the claim's.
        expect((await receiver.handle(syncDelivery(randomUUID())(), {})).status).toBe(200);
        // The claim waits on this lock, so its backend can be terminated while the claim is open.
        const locker = new pg.Client({ connectionString: server.url });
        await locker.connect();
        await locker.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        try {
          const answer = receiver.handle(delivery(), handlers);
          const pid = await waitUntil('the claim to wait on the lock', async () => {
            const rows = await sql(
              "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> $2",
              [`%${table}%`, (locker as unknown as { processID: number }).processID],
            );
            return rows[0]?.pid as number | undefined;
          });
          await sql('SELECT pg_terminate_backend($1)', [pid]);
          expect(await answer).toEqual(UNAVAILABLE);
        } finally {
          await locker.end();
        }
        expect(runs).toBe(0);
        expect(await count(`${table} WHERE id = '${id}' AND answer IS NOT NULL`)).toBe(0);
        // A pg Client whose connection died stays dead: the user connects a new one.
        if (name === 'pg Client') opened.push(await bare(name));
        await expectRetryRunsOnce(receiverOn(opened.at(-1)!.client), delivery, handlers, () => runs);
        for (const db of opened) await db.close();
      });
    }

    // postgres.js 3.4 itself throws from a timer when a statement is sent on a transaction whose
    // connection closed, so only the pg clients are asked to query after the kill.
    const after = name === 'postgres' ? [false] : [false, true];
    const prepared = name === 'postgres' ? [false] : [false, true];
    for (const [queriesAfter, preparedStatements] of after.flatMap((q) => prepared.map((p) => [q, p] as const))) {
      const mode = `transactional${preparedStatements ? ', preparedStatements' : ''}`;
      const title = queriesAfter
        ? `${name}, ${mode}: the handler queries its tx after the backend was terminated → 5xx, nothing recorded, the retry runs once`
        : `${name}, ${mode}: the backend terminated while the handler runs → 503, nothing recorded, the retry runs once`;
      it(title, async () => {
        const { table, effects } = await newTables();
        const opened = [await bare(name)];
        const receiverOn = (client: PostgresClientLike) =>
          createReceiver({
            token: FAULT_TOKEN,
            dedup: postgresDedupStore(client, { table, transactional: true, preparedStatements }),
            onError: () => {},
          });
        const entered = gate();
        const resume = gate();
        let runs = 0;
        let backend: unknown;
        const handlers: WebhookHandlers = {
          'article.sync': async (event, { tx }) => {
            runs++;
            const query = txQuery(name, tx);
            await query(`INSERT INTO ${effects} (delivery) VALUES ($1)`, [event.deliveryId]);
            if (runs > 1) return;
            backend = (await query('SELECT pg_backend_pid() AS pid'))[0]!.pid;
            entered.open();
            await resume.wait;
            if (queriesAfter) await query(`INSERT INTO ${effects} (delivery) VALUES ('after')`);
          },
        };
        const delivery = syncDelivery(randomUUID());
        const answer = receiverOn(opened[0]!.client).handle(delivery(), handlers);
        await entered.wait;
        await sql('SELECT pg_terminate_backend($1)', [backend]);
        // Lets the connection see its end while the handler still runs, then lets the handler return.
        await waitUntil('the backend to go', async () =>
          (await sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backend])).length === 0 ? true : undefined,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        resume.open();
        if (queriesAfter) {
          // The handler sees the dropped connection first, so the receiver answers for the handler (500).
          expect([500, 503]).toContain((await answer).status);
        } else {
          expect(await answer).toEqual(UNAVAILABLE);
        }
        expect(await count(effects)).toBe(0);
        expect(await count(table)).toBe(0);
        if (name === 'pg Client') opened.push(await bare(name));
        await expectRetryRunsOnce(receiverOn(opened.at(-1)!.client), delivery, handlers, () => runs);
        expect(await count(effects)).toBe(1);
        for (const db of opened) await db.close();
      });
    }
  }
});
