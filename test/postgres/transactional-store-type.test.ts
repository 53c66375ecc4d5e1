import type { Job } from 'bullmq';
import type pg from 'pg';
import type postgres from 'postgres';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createReceiver,
  type DedupStore,
  type JobSource,
  type QueuedDelivery,
  startWorker,
} from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';

// Checked by the type-check of the tests (npm run typecheck); the functions are never called.
// Issue 46: `tx` was `unknown` in startWorker handlers even with the transactional store in the
// same call; postgresDedupStore(db, { transactional: true }) now names its transaction.
declare const source: JobSource<Job<QueuedDelivery>>;
declare const pool: pg.Pool;
declare const sql: postgres.Sql;

describe("postgresDedupStore's transaction, as the handlers see it", () => {
  it('types tx as a pg PoolClient for a Pool, with no type argument', () => {
    const start = () =>
      startWorker(source, {
        dedup: postgresDedupStore(pool, { transactional: true }),
        handlers: {
          'article.sync': async ({ article }, { tx }) => {
            expectTypeOf(tx).toEqualTypeOf<pg.PoolClient>();
            await tx.query('insert into posts (id) values ($1)', [article.id]);
          },
        },
      });
    expectTypeOf(start).returns.toHaveProperty('ready');
  });

  it("types tx as postgres's TransactionSql", () => {
    const start = () =>
      startWorker(source, {
        dedup: postgresDedupStore(sql, { transactional: true }),
        handlers: { 'article.sync': (_event, { tx }) => expectTypeOf(tx).toEqualTypeOf<postgres.TransactionSql>() },
      });
    expectTypeOf(start).returns.toHaveProperty('close');
  });

  it('stays a plain DedupStore without transactional: true, and fits createReceiver either way', () => {
    const plain = () => postgresDedupStore(pool);
    expectTypeOf(plain).returns.toEqualTypeOf<DedupStore>();
    const receiver = () => createReceiver({ token: 't', dedup: postgresDedupStore(pool, { transactional: true }) });
    expectTypeOf(receiver).returns.toHaveProperty('handle');
  });
});
