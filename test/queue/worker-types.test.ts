import type { Job } from 'bullmq';
import type pg from 'pg';
import { describe, expectTypeOf, it } from 'vitest';
import { type JobSource, type QueuedDelivery, startWorker, type WebhookHandlers } from 'webhook-cms-receiver';
import type { TransactionOf } from 'webhook-cms-receiver/postgres';

// Checked by the type-check of the tests (npm run typecheck); nothing runs: the functions below
// are never called.
declare const source: JobSource<Job<QueuedDelivery>>;
declare const pool: pg.Pool;

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
});
