import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Sql, TransactionSql } from 'postgres';
import { describe, expectTypeOf, it } from 'vitest';
import type { TransactionOf } from 'webhook-cms-receiver/postgres';

// Checked by the type-check of the tests (npm run typecheck); the runtime part is trivially true.
describe('TransactionOf: the tx type a transactional store hands the handler, per client', () => {
  it('is a PoolClient for a pg Pool, the Client for a pg Client', () => {
    expectTypeOf<TransactionOf<pg.Pool>>().toEqualTypeOf<pg.PoolClient>();
    expectTypeOf<TransactionOf<pg.Client>>().toEqualTypeOf<pg.Client>();
  });

  it("is postgres's TransactionSql and PGlite's Transaction", () => {
    expectTypeOf<TransactionOf<Sql>>().toEqualTypeOf<TransactionSql>();
    expectTypeOf<TransactionOf<PGlite>>().toEqualTypeOf<Transaction>();
  });
});
