import { afterAll, expect, it } from 'vitest';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { checkDedupStore } from 'webhook-cms-receiver/testing';
import { describeEachClient, freshTable, server } from '../postgres/postgres-clients.js';

// Plain mode runs the kit inside storeContract (test/postgres/postgres-store.test.ts); this is
// transactional mode, whose transact the kit checks too.
afterAll(() => server.stop());

describeEachClient(
  (name) => `checkDedupStore on postgresDedupStore({ transactional: true }) with ${name}`,
  (db, name) => {
    it('passes every check, transact, kept requests and ordering included', async () => {
      const table = freshTable();
      const report = await checkDedupStore(
        ({ leaseMs, retentionMs }) =>
          postgresDedupStore(db().client, { table, transactional: true, leaseMs, retentionMs }),
        { name: `postgresDedupStore transactional (${name})`, throwOnFailure: false },
      );
      expect(report.checks.filter((check) => check.outcome !== 'passed')).toEqual([]);
      expect(report.checks.filter((check) => check.name.startsWith('transact:'))).toHaveLength(2);
    }, 60_000);
  },
);
