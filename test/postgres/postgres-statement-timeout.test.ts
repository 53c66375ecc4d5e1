import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { expectRetryRunsOnce, FAULT_TOKEN, syncDelivery, UNAVAILABLE } from '../stores/fault-kit.js';
import { describeWithServer, freshTable, server } from './postgres-clients.js';

// docs/stores.md: the store sets no time limit on its statements; the pool's statement_timeout
// and query_timeout give one, and a claim that runs into it is answered 503 and retried.

afterAll(() => server.stop());

describeWithServer('a pg Pool with statement_timeout and query_timeout, as docs/stores.md advises', () => {
  it('answers a claim stuck behind a lock 503, and the retry runs the handler once', async () => {
    const pool = new pg.Pool({ connectionString: server.url, statement_timeout: 300, query_timeout: 2000 });
    const table = freshTable();
    const receiver = createReceiver({
      token: FAULT_TOKEN,
      dedup: postgresDedupStore(pool, { table }),
      onError: () => {},
    });
    let runs = 0;
    const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
    // The store's first claim creates its table and sweeps: done before the lock.
    expect((await receiver.handle(syncDelivery(randomUUID())(), {})).status).toBe(200);
    const locker = new pg.Client({ connectionString: server.url });
    await locker.connect();
    await locker.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const delivery = syncDelivery(randomUUID());
    try {
      // Without the timeouts the claim would wait for the lock as long as it is held. With them
      // the server cancels it, it is sent once more alone (batch.ts) and cancelled again.
      expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
      expect(runs).toBe(0);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await expectRetryRunsOnce(receiver, delivery, handlers, () => runs);
    await pool.end();
  });
});
