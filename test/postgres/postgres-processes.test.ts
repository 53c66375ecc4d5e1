import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, type SignedDelivery, signDelivery } from 'webhook-cms-receiver/testing';
import { bundleReceiver } from './child-bundle.js';
import { describeWithServer, freshTable, openDatabase, server, type TestDatabase } from './postgres-clients.js';
import { childLines } from '../helpers/child-lines.js';

const token = 'postgres-processes-token';
const script = fileURLToPath(new URL('./receiver-child.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(() => server.stop());

interface Child {
  process: ChildProcess;
  waitFor(pattern: RegExp): Promise<string>;
  exited: Promise<void>;
}

describeWithServer('postgresDedupStore({ transactional: true }) across processes', () => {
  let bundle: string;
  let db: TestDatabase;
  let table: string;
  let effects: string;
  const children: Child[] = [];
  beforeAll(async () => {
    bundle = await bundleReceiver();
    db = await openDatabase('pg Pool');
    table = freshTable();
    effects = freshTable('effects');
    await db.sql(`CREATE TABLE ${effects} (id serial PRIMARY KEY, delivery text NOT NULL, note text)`);
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.process.kill('SIGKILL');
    await db?.close();
    if (bundle) rmSync(dirname(bundle), { recursive: true, force: true });
  });

  const start = (env: Record<string, string>): Child => {
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        BUNDLE: bundle,
        DATABASE_URL: server.url,
        TABLE: table,
        EFFECTS: effects,
        TOKEN: token,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const { waitFor, exited } = childLines(child, 'the child');
    const started = { process: child, waitFor, exited };
    children.push(started);
    return started;
  };
  const delivery = (deliveryId: string): SignedDelivery =>
    signDelivery({ token, payload: articleSyncPayload(), deliveryId });
  const effectRows = async (id: string) => db.sql(`SELECT note FROM ${effects} WHERE delivery = $1 ORDER BY id`, [id]);

  for (const client of ['pg', 'postgres']) {
    it(`leaves nothing behind a receiver killed with SIGKILL mid-handler (${client}); the retry writes exactly one row`, async () => {
      const id = randomUUID();
      const signed = delivery(id);
      const child = start({ CLIENT: client, NAME: 'killed', DELIVERY: JSON.stringify(signed), BEHAVIOUR: 'hang' });
      await child.waitFor(new RegExp(`^wrote ${id}$`));
      child.process.kill('SIGKILL');
      await child.exited;

      const receiver = createReceiver({ token, dedup: postgresDedupStore(db.client, { table, transactional: true }) });
      const write = async (event: { deliveryId: string | null }, { tx }: { tx?: unknown }) => {
        const pool = tx as { query(text: string, params: unknown[]): Promise<unknown> };
        await pool.query(`INSERT INTO ${effects} (delivery, note) VALUES ($1, 'retry')`, [event.deliveryId]);
      };
      // Postgres rolls back as soon as it reads the closed socket; until then the retry may see the copy in flight.
      let answer = await receiver.handle(signed, { 'article.sync': write });
      for (let tries = 0; answer.status === 409 && tries < 10; tries++) {
        await sleep(200);
        answer = await receiver.handle(signed, { 'article.sync': write });
      }
      expect(answer).toEqual({ status: 200, body: { ok: true } });
      expect(await effectRows(id)).toEqual([{ note: 'retry' }]);
      expect(await db.sql(`SELECT answer::text AS answer FROM ${table} WHERE id = $1`, [id])).toEqual([
        { answer: '{"ok": true}' },
      ]);
    });
  }

  it('runs the handler once for 300 concurrent copies in each of two processes (pg and postgres)', async () => {
    const id = randomUUID();
    const signed = JSON.stringify(delivery(id));
    const copies = '300';
    const both = [
      start({ CLIENT: 'pg', NAME: 'first', DELIVERY: signed, COPIES: copies }),
      start({ CLIENT: 'postgres', NAME: 'second', DELIVERY: signed, COPIES: copies }),
    ];
    const counts = await Promise.all(
      both.map(async (child) => JSON.parse((await child.waitFor(/^answers /)).slice('answers '.length))),
    );
    const total = (kind: string) => counts.reduce((sum, count) => sum + (count[kind] ?? 0), 0);
    expect(await effectRows(id)).toHaveLength(1);
    expect(total('200')).toBe(1);
    expect(total('200') + total('200 duplicate') + total('409')).toBe(600);
  }, 60_000);
});
