import type { Job } from 'bullmq';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type DedupStore,
  type JobSource,
  memoryDedupStore,
  type QueuedDelivery,
  type StoredAnswer,
  startWorker,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import type { TransactionOf } from 'webhook-cms-receiver/postgres';

// Checked by the type-check of the tests (npm run typecheck); nothing runs: the functions below
// are never called.
declare const source: JobSource<Job<QueuedDelivery>>;
declare const pool: pg.Pool;
/** A transactional store that names its transaction, as postgresDedupStore(pool, { transactional: true }) can. */
declare const transactional: DedupStore & {
  transact(claim: unknown, work: (tx: pg.PoolClient) => Promise<StoredAnswer>): Promise<never>;
};

describe('typed tx in worker handlers', () => {
  it("takes the README's WebhookHandlers<{ tx: TransactionOf<typeof pool> }> as they are", () => {
    const handlers: WebhookHandlers<{ tx: TransactionOf<typeof pool> }> = {
      'article.sync': async ({ article }, { tx }) => {
        expectTypeOf(tx).toEqualTypeOf<pg.PoolClient>();
        await tx.query('insert into posts (id) values ($1)', [article.id]);
      },
    };
    const start = () => startWorker(source, { handlers });
    expectTypeOf(start).returns.toHaveProperty('ready');
  });

  it('types tx, job and signal in handlers written inline, given the context type', () => {
    const start = () =>
      startWorker<Job<QueuedDelivery>, { tx: pg.PoolClient }>(source, {
        handlers: {
          'article.sync': (_event, { tx, job, signal }) => {
            expectTypeOf(tx).toEqualTypeOf<pg.PoolClient>();
            expectTypeOf(job).toEqualTypeOf<Job<QueuedDelivery>>();
            expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
          },
        },
      });
    expectTypeOf(start).returns.toHaveProperty('close');
  });

  it('leaves tx unknown without a context type, as handle() does', () => {
    const start = () =>
      startWorker(source, {
        handlers: { 'article.sync': (_event, { tx }) => expectTypeOf(tx).toEqualTypeOf<unknown>() },
      });
    expectTypeOf(start).returns.toHaveProperty('ready');
  });

  it('types tx from a transactional store given in the same call, without a type argument (issue 46)', () => {
    const start = () =>
      startWorker(source, {
        dedup: transactional,
        handlers: {
          'article.sync': async ({ article }, { tx, job }) => {
            expectTypeOf(tx).toEqualTypeOf<pg.PoolClient>();
            expectTypeOf(job).toEqualTypeOf<Job<QueuedDelivery>>();
            await tx.query('insert into posts (id) values ($1)', [article.id]);
          },
        },
      });
    expectTypeOf(start).returns.toHaveProperty('ready');
  });

  it('keeps tx unknown with a store that names no transaction', () => {
    const start = () =>
      startWorker(source, {
        dedup: memoryDedupStore(),
        handlers: { 'article.sync': (_event, { tx }) => expectTypeOf(tx).toEqualTypeOf<unknown>() },
      });
    expectTypeOf(start).returns.toHaveProperty('ready');
  });

  it('takes a dedup store beside explicit type arguments', () => {
    const start = () =>
      startWorker<Job<QueuedDelivery>, { tx: pg.PoolClient }>(source, {
        dedup: memoryDedupStore(),
        handlers: { 'article.sync': (_event, { tx }) => expectTypeOf(tx).toEqualTypeOf<pg.PoolClient>() },
      });
    expectTypeOf(start).returns.toHaveProperty('close');
  });
});
