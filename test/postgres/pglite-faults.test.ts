import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import {
  DUPLICATE,
  expectRetryRunsOnce,
  HANDLED,
  FAULT_TOKEN,
  gate,
  syncDelivery,
  UNAVAILABLE,
  watchForCrashes,
} from '../stores/fault-kit.js';
import { freshTable } from './fresh-table.js';
import { txQuery } from './transaction-handle.js';

/**
 * PGlite runs Postgres inside this process: there is no connection to kill, but the database
 * can be closed under the store (a shutdown racing a delivery). Its files are on disk, so the
 * retry runs on the database opened again, as after a restart.
 */
describe('store faults: PGlite closed under the store (contract v3)', () => {
  watchForCrashes();
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wcr-pglite-'));
    // One database for the file (initdb once); each test has tables of its own.
    path = join(dir, 'data');
    await (await PGlite.create(path)).close();
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const receiverOn = (db: PGlite, table: string, transactional: boolean) =>
    createReceiver({ token: FAULT_TOKEN, dedup: postgresDedupStore(db, { table, transactional }), onError: () => {} });

  for (const transactional of [false, true]) {
    it(`${transactional ? 'transactional' : 'plain'}: a closed database → 503, the host lives, the retry on the reopened one runs once`, async () => {
      const table = freshTable();
      let runs = 0;
      const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
      const delivery = syncDelivery(randomUUID());
      const db = await PGlite.create(path);
      const receiver = receiverOn(db, table, transactional);
      expect(await receiver.handle(syncDelivery(randomUUID())(), handlers)).toEqual({
        status: 200,
        body: { ok: true },
      });
      await db.close();
      expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
      expect(runs).toBe(1);
      const reopened = await PGlite.create(path);
      await expectRetryRunsOnce(receiverOn(reopened, table, transactional), delivery, handlers, () => runs);
      await reopened.close();
    }, 60_000);
  }

  it('transactional: close() while the handler runs waits for its transaction: 200 once, the retry is a duplicate', async () => {
    const table = freshTable();
    const effects = freshTable('effects');
    const db = await PGlite.create(path);
    await db.exec(`CREATE TABLE ${effects} (delivery text NOT NULL)`);
    const entered = gate();
    const resume = gate();
    let runs = 0;
    const handlers: WebhookHandlers = {
      'article.sync': async (event, { tx }) => {
        runs++;
        await txQuery('PGlite', tx)(`INSERT INTO ${effects} (delivery) VALUES ($1)`, [event.deliveryId]);
        entered.open();
        await resume.wait;
      },
    };
    const delivery = syncDelivery(randomUUID());
    const answer = receiverOn(db, table, true).handle(delivery(), handlers);
    await entered.wait;
    // PGlite has no connection to lose: close() queues behind the open transaction.
    const closed = db.close();
    resume.open();
    expect(await answer).toEqual(HANDLED);
    await closed;
    const reopened = await PGlite.create(path);
    const rows = await reopened.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${effects}`);
    expect(rows.rows).toEqual([{ n: 1 }]);
    expect(await receiverOn(reopened, table, true).handle(delivery(), handlers)).toEqual(DUPLICATE);
    expect(runs).toBe(1);
    await reopened.close();
  }, 60_000);
});
