import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type LedgerEntry, type LedgerFilter, type LedgerStore, memoryLedgerStore } from 'webhook-cms-receiver';
import { postgresLedgerStore, postgresLedgerTableSql } from 'webhook-cms-receiver/postgres';
import { checkLedgerStore } from 'webhook-cms-receiver/testing';
import { countingStatements } from './counting-statements.js';
import { describeEachClient, freshTable, server } from './postgres-clients.js';

afterAll(() => server.stop());

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);
let serial = 0;

/** An entry as a receiver writes one; ids sort by time as the ledger's do. */
function entry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  const receivedAt = overrides.receivedAt ?? T0 + serial;
  serial++;
  return {
    id: `r.${String(receivedAt).padStart(13, '0')}.${serial.toString(16).padStart(12, '0')}`,
    receivedAt,
    durationMs: 3,
    verified: true,
    deliveryId: `d-${serial}`,
    event: 'article.sync',
    articleId: 'a-1',
    slug: 'hello',
    articleStatus: 'publish',
    profileId: 'p-1',
    tenant: null,
    status: 200,
    code: 'ok',
    tokenIndex: 0,
    publishedUrl: null,
    ...overrides,
  };
}

/** Rows over ten hours: tenants and none, repeated delivery ids, every outcome, refusals. */
function mixed(count: number): LedgerEntry[] {
  const statuses = [200, 200, 202, 401, 403, 409, 503, 500, 422, 302];
  return Array.from({ length: count }, (_, i) => {
    const status = statuses[i % statuses.length]!;
    const verified = status !== 401 && status !== 403;
    return entry({
      receivedAt: T0 + Math.floor((i * 10 * HOUR) / count),
      verified,
      status,
      deliveryId: i % 9 === 0 ? null : `d-${i % 23}`,
      event: i % 5 === 0 ? 'article.trash' : 'article.sync',
      articleId: i % 11 === 0 ? null : `a-${i % 13}`,
      tenant: verified && i % 4 !== 0 ? `site-${i % 3}` : null,
      tokenIndex: verified ? i % 2 : null,
      ...(i % 29 === 0 ? { recoveredFrom: 'r.0000000000001.000000000000' } : {}),
      ...(status === 401 ? { kept: i % 2 === 0 } : {}),
    });
  });
}

const FILTERS: Omit<LedgerFilter, 'limit'>[] = [
  {},
  { since: T0 + 2 * HOUR, until: T0 + 5 * HOUR + 123 },
  { statusFrom: 200, statusTo: 299 },
  { statusFrom: 401, statusTo: 401 },
  { verified: false },
  { verified: true, tenant: 'site-1' },
  { tenant: 'site-2', event: 'article.trash' },
  { article: 'a-3' },
  { deliveryId: 'd-5' },
  { deliveryId: 'd-5', tenant: 'site-2' },
  { recoveredFrom: 'r.0000000000001.000000000000' },
  { article: 'a-4', since: T0 + HOUR, statusFrom: 500, statusTo: 599 },
];

describeEachClient(
  (name) => `postgresLedgerStore on ${name}`,
  (db) => {
    let store: LedgerStore;
    let table: string;
    beforeEach(() => {
      table = freshTable('ledger');
      store = postgresLedgerStore(db().client, { table });
    });

    it('passes the ledger store conformance kit', async () => {
      const report = await checkLedgerStore(() => postgresLedgerStore(db().client, { table: freshTable('ledger') }), {
        throwOnFailure: false,
      });
      expect(report.text).not.toMatch(/fail/i);
      expect(report.ok).toBe(true);
    }, 60_000);

    it('answers every list, summary and prune as the memory store does', async () => {
      const memory = memoryLedgerStore();
      const given = mixed(300);
      for (let at = 0; at < given.length; at += 70) {
        await store.append(given.slice(at, at + 70));
        await memory.append(given.slice(at, at + 70));
      }
      for (const filter of FILTERS) {
        const pages = async (on: LedgerStore) => {
          const seen: unknown[] = [];
          let cursor: string | undefined;
          do {
            const page = await on.list({ ...filter, limit: 37, ...(cursor ? { cursor } : {}) });
            seen.push(page.rows);
            cursor = page.next;
          } while (cursor);
          return seen;
        };
        expect(await pages(store), JSON.stringify(filter)).toEqual(await pages(memory));
      }
      const range = { since: T0 + HOUR / 2, until: T0 + 8 * HOUR + 17 };
      expect(await store.summary(range)).toEqual(await memory.summary(range));
      expect(await store.summary({ ...range, tenant: 'site-1' })).toEqual(
        await memory.summary({ ...range, tenant: 'site-1' }),
      );
      const limits = { before: T0 + 2 * HOUR, maxRowsPerTenant: 25, maxRefusedRows: 10 };
      expect(await store.prune(limits)).toBe(await memory.prune(limits));
      expect((await store.list({ limit: 1000 })).rows).toEqual((await memory.list({ limit: 1000 })).rows);
    });

    it('writes a whole batch in one statement, copies counted across the table and the batch', async () => {
      const counted = countingStatements(db().client as object);
      const counting = postgresLedgerStore(counted.client as never, { table });
      await counting.append([entry({ deliveryId: 'same' })]);
      counted.statements.length = 0;
      await counting.append([
        entry({ deliveryId: 'same' }),
        entry({ deliveryId: 'other' }),
        entry({ deliveryId: 'same' }),
        entry({ deliveryId: 'same', tenant: 'site-b' }),
        entry({ deliveryId: null }),
      ]);
      expect(counted.statements).toHaveLength(1);
      const { rows } = await store.list({ limit: 10 });
      expect(rows.map((row) => [row.deliveryId, row.tenant, row.copy])).toEqual([
        [null, null, 0],
        ['same', 'site-b', 1],
        ['same', null, 3],
        ['other', null, 1],
        ['same', null, 2],
        ['same', null, 1],
      ]);
    });

    it('reads back each row as it was appended, with its copy', async () => {
      const given = [
        entry({ kept: true, verified: false, status: 401, code: 'unauthorized', tokenIndex: null }),
        entry({ recoveredFrom: 'r.0000000000001.abc', publishedUrl: 'https://blog.example/a', tenant: 't' }),
      ];
      await store.append(given);
      const { rows } = await store.list({ limit: 10 });
      expect(rows).toEqual([
        { ...given[1], copy: 1 },
        { ...given[0], copy: 1 },
      ]);
    });

    it('filters on every field and pages newest first with the cursor', async () => {
      await store.append([
        entry({ receivedAt: T0, status: 200, event: 'article.sync', articleId: 'a', tenant: 'x' }),
        entry({ receivedAt: T0 + 1000, status: 401, verified: false, event: 'article.trash', articleId: 'b' }),
        entry({ receivedAt: T0 + 2000, status: 503, code: 'handler_failed', articleId: 'a', deliveryId: 'dd' }),
        entry({ receivedAt: T0 + 3000, status: 409, recoveredFrom: 'r.x', articleId: 'c', tenant: 'x' }),
      ]);
      const ids = async (filter: Parameters<LedgerStore['list']>[0]) =>
        (await store.list(filter)).rows.map((row) => row.receivedAt - T0);
      expect(await ids({ limit: 10, since: T0 + 1000, until: T0 + 3000 })).toEqual([2000, 1000]);
      expect(await ids({ limit: 10, statusFrom: 400, statusTo: 499 })).toEqual([3000, 1000]);
      expect(await ids({ limit: 10, event: 'article.trash' })).toEqual([1000]);
      expect(await ids({ limit: 10, article: 'a' })).toEqual([2000, 0]);
      expect(await ids({ limit: 10, tenant: 'x' })).toEqual([3000, 0]);
      expect(await ids({ limit: 10, deliveryId: 'dd' })).toEqual([2000]);
      expect(await ids({ limit: 10, verified: false })).toEqual([1000]);
      expect(await ids({ limit: 10, recoveredFrom: 'r.x' })).toEqual([3000]);
      const first = await store.list({ limit: 3 });
      expect(first.next).toBe(first.rows[2]!.id);
      const second = await store.list({ limit: 3, cursor: first.next! });
      expect(second.rows.map((row) => row.receivedAt - T0)).toEqual([0]);
      expect(second.next).toBeUndefined();
    });

    it('counts per UTC hour by outcome, oldest first, narrowed to a tenant', async () => {
      await store.append([
        entry({ receivedAt: T0 + 10, status: 200 }),
        entry({ receivedAt: T0 + 20, status: 401, verified: false }),
        entry({ receivedAt: T0 + 30, status: 403, verified: false }),
        entry({ receivedAt: T0 + HOUR + 5, status: 422 }),
        entry({ receivedAt: T0 + HOUR + 6, status: 503, tenant: 't' }),
        entry({ receivedAt: T0 + 3 * HOUR, status: 200 }),
      ]);
      expect(await store.summary({ since: T0, until: T0 + 3 * HOUR })).toEqual([
        { hour: T0, delivered: 1, refused: 2, rejected: 0, failed: 0 },
        { hour: T0 + HOUR, delivered: 0, refused: 0, rejected: 1, failed: 1 },
      ]);
      expect(await store.summary({ since: T0, until: T0 + 4 * HOUR, tenant: 't' })).toEqual([
        { hour: T0 + HOUR, delivered: 0, refused: 0, rejected: 0, failed: 1 },
      ]);
    });

    it('prunes by time, per tenant among verified rows, and refused rows in all', async () => {
      await store.append([
        entry({ receivedAt: T0 - 10 * HOUR }),
        ...[1, 2, 3].map((i) => entry({ receivedAt: T0 + i, tenant: 'a' })),
        ...[4, 5].map((i) => entry({ receivedAt: T0 + i, tenant: 'b' })),
        ...[6, 7, 8].map((i) => entry({ receivedAt: T0 + i, verified: false, status: 401 })),
      ]);
      expect(await store.prune({ before: T0, maxRowsPerTenant: 2, maxRefusedRows: 1 })).toBe(4);
      const { rows } = await store.list({ limit: 20 });
      expect(rows.map((row) => row.receivedAt - T0)).toEqual([8, 5, 4, 3, 2]);
      expect(await store.prune({ before: T0, maxRowsPerTenant: 2, maxRefusedRows: 1 })).toBe(0);
    });

    it('stores what Postgres text cannot hold, and finds a long id by its own value', async () => {
      const long = 'x'.repeat(5000);
      await store.append([
        entry({ verified: false, slug: 'a\u0000b\uD800c', articleId: long, deliveryId: long, event: '\u001b[31m' }),
      ]);
      const [row] = (await store.list({ limit: 1, article: long, deliveryId: long })).rows;
      expect(row?.slug).toBe('a\uFFFDb\uFFFDc');
      expect(row?.event).toBe('\u001b[31m');
      expect(row?.copy).toBe(1);
    });

    it('creates nothing with createTable: false, and works on the migration SQL', async () => {
      const bare = postgresLedgerStore(db().client, { table, createTable: false });
      await expect(bare.append([entry()])).rejects.toThrow(/postgresLedgerTableSql/);
      for (const statement of postgresLedgerTableSql({ table })
        .split(';')
        .filter((s) => s.trim())) {
        await db().sql(statement);
      }
      await bare.append([entry()]);
      expect((await bare.list({ limit: 5 })).rows).toHaveLength(1);
    });
  },
);

describe('postgresLedgerStore summary in a session time zone half an hour off UTC', () => {
  it('still counts per UTC hour', async () => {
    const db = await PGlite.create();
    try {
      await db.query("SET TIME ZONE 'Asia/Kolkata'");
      const store = postgresLedgerStore(db, { table: freshTable('ledger') });
      // 10:10 and 10:50 UTC: one UTC hour, but 15:40 and 16:20 in India, two of its hours.
      await store.append([entry({ receivedAt: T0 + 10 * 60_000 }), entry({ receivedAt: T0 + 50 * 60_000 })]);
      expect(await store.summary({ since: T0, until: T0 + HOUR })).toEqual([
        { hour: T0, delivered: 2, refused: 0, rejected: 0, failed: 0 },
      ]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
