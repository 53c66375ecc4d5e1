import type { DedupStore } from '../dedup/store.js';
import type { LedgerEntry, LedgerRow } from '../ledger/ledger-row.js';
import type { LedgerFilter, LedgerStore } from '../ledger/ledger-store.js';
import { rowId } from '../ledger/row-id.js';
import { KEPT_CHECKS } from './kept-checks.js';
import { expectOutcome, expectThat, newId } from './store-check.js';
import {
  StoreCheckError,
  type StoreCheckReport,
  type StoreCheckResult,
  storeCheckReport,
} from './store-check-report.js';

/** Makes a fresh, empty ledger store: `checkLedgerStore` calls it once per check. */
export type MakeLedgerStore = () => LedgerStore | Promise<LedgerStore>;

interface LedgerCheck {
  name: string;
  fix: string;
  run(fresh: () => Promise<LedgerStore>): Promise<void>;
}

// A fixed hour in the past, so hours and retention cuts fall where the checks expect.
const HOUR = Date.UTC(2026, 0, 1, 10);

/**
 * A ledger row for a store's tests: verified 200 by default, overrides win.
 *
 * @example
 * ```ts
 * await store.append([ledgerEntry({ status: 401, verified: false, code: 'invalid_token' })]);
 * ```
 */
export function ledgerEntry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  const receivedAt = overrides.receivedAt ?? HOUR + 1000;
  return {
    id: rowId(receivedAt),
    receivedAt,
    durationMs: 3,
    verified: true,
    deliveryId: newId(),
    event: 'article.sync',
    articleId: 'article-1',
    slug: 'hello-world',
    articleStatus: 'published',
    profileId: 'profile-1',
    tenant: null,
    status: 200,
    code: 'ok',
    tokenIndex: 0,
    publishedUrl: 'https://blog.example.com/hello-world',
    ...overrides,
  };
}

const all = (limit = 1000): LedgerFilter => ({ limit });

async function listed(store: LedgerStore, filter: LedgerFilter): Promise<LedgerRow[]> {
  return (await store.list(filter)).rows;
}

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

const CHECKS: LedgerCheck[] = [
  {
    name: 'rows: written in one append and listed newest first, every field as written',
    fix: 'Store every LedgerRow field (nulls as null, `kept` and `recoveredFrom` only when set) and list by id, descending.',
    async run(fresh) {
      const store = await fresh();
      const older = ledgerEntry({ receivedAt: HOUR + 1000 });
      const refused = ledgerEntry({
        receivedAt: HOUR + 2000,
        verified: false,
        status: 401,
        code: 'invalid_token',
        tokenIndex: null,
        tenant: null,
        slug: '<script>alert(1)</script>',
        publishedUrl: null,
        articleStatus: null,
        profileId: null,
        kept: true,
      });
      const recovered = ledgerEntry({ receivedAt: HOUR + 3000, tenant: 'site-a', recoveredFrom: refused.id });
      await store.append([older, refused, recovered]);
      const rows = await listed(store, all());
      expectOutcome(ids(rows), [recovered.id, refused.id, older.id], 'ids newest first');
      expectOutcome(rows[1], { ...refused, copy: 1 }, 'the refused row');
      expectOutcome(rows[0], { ...recovered, copy: 1 }, 'the recovered row');
    },
  },
  {
    name: 'copy: 1 + the rows on record with the same tenant and delivery id, 0 without one',
    fix: 'Count the rows already stored with the same (tenant, deliveryId), plus earlier rows of the same batch, when appending.',
    async run(fresh) {
      const store = await fresh();
      const deliveryId = newId();
      await store.append([ledgerEntry({ deliveryId }), ledgerEntry({ deliveryId, receivedAt: HOUR + 1001 })]);
      await store.append([
        ledgerEntry({ deliveryId, receivedAt: HOUR + 1002 }),
        ledgerEntry({ deliveryId, tenant: 'site-b', receivedAt: HOUR + 1003 }),
        ledgerEntry({ deliveryId: null, event: 'test', receivedAt: HOUR + 1004 }),
      ]);
      const rows = await listed(store, all());
      expectOutcome(
        rows.map((row) => [row.tenant, row.deliveryId === null ? null : 'd', row.copy]),
        [
          [null, null, 0],
          ['site-b', 'd', 1],
          [null, 'd', 3],
          [null, 'd', 2],
          [null, 'd', 1],
        ],
        'copies newest first',
      );
    },
  },
  {
    name: 'list: every filter, the status as a range, until exclusive',
    fix: 'Apply each LedgerFilter field: since (>=), until (<), statusFrom/statusTo (inclusive), event, article, tenant, deliveryId, verified, recoveredFrom.',
    async run(fresh) {
      const store = await fresh();
      const a = ledgerEntry({ receivedAt: HOUR + 1000, tenant: 'site-a' });
      const b = ledgerEntry({ receivedAt: HOUR + 2000, status: 401, code: 'invalid_token', verified: false });
      const c = ledgerEntry({
        receivedAt: HOUR + 3000,
        status: 503,
        code: 'dedup_unavailable',
        event: 'article.trash',
      });
      const d = ledgerEntry({ receivedAt: HOUR + 4000, articleId: 'article-2', recoveredFrom: b.id });
      await store.append([a, b, c, d]);
      const expect = async (filter: Partial<LedgerFilter>, rows: LedgerEntry[], what: string) =>
        expectOutcome(ids(await listed(store, { ...all(), ...filter })), ids(rows), what);
      await expect({ since: HOUR + 2000 }, [d, c, b], 'since');
      await expect({ until: HOUR + 3000 }, [b, a], 'until');
      await expect({ statusFrom: 400, statusTo: 499 }, [b], 'status 4xx');
      await expect({ statusFrom: 503, statusTo: 503 }, [c], 'status 503');
      await expect({ event: 'article.trash' }, [c], 'event');
      await expect({ article: 'article-2' }, [d], 'article');
      await expect({ tenant: 'site-a' }, [a], 'tenant');
      await expect({ deliveryId: c.deliveryId! }, [c], 'deliveryId');
      await expect({ verified: false }, [b], 'verified: false');
      await expect({ recoveredFrom: b.id }, [d], 'recoveredFrom');
      await expect(
        { since: HOUR + 1000, until: HOUR + 4000, verified: true, statusFrom: 200, statusTo: 299 },
        [a],
        'combined',
      );
    },
  },
  {
    name: 'list: pages of `limit` with a cursor, every row once, no `next` on the last page',
    fix: 'Return at most `limit` rows with id below `cursor`, and `next` (the last id returned) only when more rows match.',
    async run(fresh) {
      const store = await fresh();
      const entries = Array.from({ length: 25 }, (_, i) => ledgerEntry({ receivedAt: HOUR + i * 10 }));
      await store.append(entries);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await store.list({ limit: 10, ...(cursor ? { cursor } : {}) });
        expectThat(result.rows.length <= 10, `a page of limit 10 held ${result.rows.length} rows`);
        seen.push(...ids(result.rows));
        if (!result.next) break;
        cursor = result.next;
      }
      expectOutcome(seen, ids(entries).reverse(), 'every row once, newest first');
      const exact = await store.list({ limit: 25 });
      expectThat(exact.next === undefined, 'a page holding the last row has a `next`');
    },
  },
  {
    name: 'summary: counts per UTC hour by outcome, oldest hour first, within [since, until)',
    fix: 'Group rows by the UTC hour of receivedAt: 2xx delivered, 401/403 refused, other 4xx rejected, the rest failed.',
    async run(fresh) {
      const store = await fresh();
      const later = HOUR + 3_600_000;
      await store.append([
        ledgerEntry({ receivedAt: HOUR + 1 }),
        ledgerEntry({ receivedAt: HOUR + 2, status: 200, code: 'duplicate' }),
        ledgerEntry({ receivedAt: HOUR + 3, status: 403, code: 'invalid_signature', verified: false }),
        ledgerEntry({ receivedAt: HOUR + 4, status: 400, code: 'invalid_payload', verified: false }),
        ledgerEntry({ receivedAt: later + 5, status: 500, code: 'handler_failed', tenant: 'site-a' }),
        ledgerEntry({ receivedAt: later + 3_600_000, status: 200 }),
      ]);
      const hours = await store.summary({ since: HOUR, until: later + 3_600_000 });
      expectOutcome(
        hours,
        [
          { hour: HOUR, delivered: 2, refused: 1, rejected: 1, failed: 0 },
          { hour: later, delivered: 0, refused: 0, rejected: 0, failed: 1 },
        ],
        'two hours',
      );
      const tenant = await store.summary({ since: HOUR, until: later + 7_200_000, tenant: 'site-a' });
      expectOutcome(tenant, [{ hour: later, delivered: 0, refused: 0, rejected: 0, failed: 1 }], 'one tenant');
    },
  },
  {
    name: 'prune: by time, newest rows kept per tenant, refusals bounded apart from real rows',
    fix: 'Delete rows received before `before`; keep the newest maxRowsPerTenant verified rows per tenant (null is one tenant) and the newest maxRefusedRows refused rows; resolve to the count deleted.',
    async run(fresh) {
      const store = await fresh();
      const old = ledgerEntry({ receivedAt: HOUR - 10_000 });
      const real = Array.from({ length: 4 }, (_, i) => ledgerEntry({ receivedAt: HOUR + i }));
      const other = ledgerEntry({ receivedAt: HOUR + 5, tenant: 'site-a' });
      const junk = Array.from({ length: 5 }, (_, i) =>
        ledgerEntry({ receivedAt: HOUR + 10 + i, verified: false, status: 401, code: 'invalid_token' }),
      );
      await store.append([old, ...real, other, ...junk]);
      const dropped = await store.prune({ before: HOUR, maxRowsPerTenant: 3, maxRefusedRows: 2 });
      expectOutcome(dropped, 1 + 1 + 3, 'rows dropped');
      const rows = await listed(store, all());
      expectOutcome(ids(rows), ids([junk[4]!, junk[3]!, other, real[3]!, real[2]!, real[1]!]), 'rows left');
    },
  },
  {
    name: 'append: concurrent appends of one delivery id all land, each copy at least 1',
    fix: 'Make append safe to call concurrently (one statement, script or transaction per batch).',
    async run(fresh) {
      const store = await fresh();
      const deliveryId = newId();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.append([ledgerEntry({ deliveryId, receivedAt: HOUR + i })])),
      );
      const rows = await listed(store, { ...all(), deliveryId });
      expectOutcome(rows.length, 20, 'rows written');
      expectThat(
        rows.every((row) => row.copy >= 1 && row.copy <= 20),
        `copies out of 1..20: ${rows.map((row) => row.copy).join(',')}`,
      );
    },
  },
];

/**
 * Runs the ledger store contract against a `LedgerStore` (one of ours, or your own for
 * `createLedger`): rows round-trip every field, copy numbers, every filter of `list`, paging,
 * hourly summaries, pruning (junk cannot push out real rows), concurrent appends, and the kept
 * refusals' keep/take contract. `makeStore` must return a fresh, empty store each call (a new
 * table or key prefix).
 *
 * @throws StoreCheckError when a check failed, unless `throwOnFailure: false`.
 * @example
 * ```ts
 * import { checkLedgerStore } from 'webhook-cms-receiver/testing';
 * await checkLedgerStore(() => myLedgerStore({ prefix: `test-${crypto.randomUUID()}` }));
 * ```
 */
export async function checkLedgerStore(
  makeStore: MakeLedgerStore,
  options: { name?: string; throwOnFailure?: boolean } = {},
): Promise<StoreCheckReport> {
  const fresh = async () => makeStore();
  const results: StoreCheckResult[] = [];
  for (const check of CHECKS) results.push(await runCheck(check.name, check.fix, () => check.run(fresh)));
  // The kept refusals keep the contract of a rotation window's kept requests: run those checks on them.
  const kept = {
    fresh: async () => ({ kept: (await makeStore()).refusals }) as unknown as DedupStore,
    leaseMs: 200,
    retentionMs: 300,
    concurrentClaims: 20,
  };
  for (const check of KEPT_CHECKS) {
    results.push(
      await runCheck(`refusals: ${check.name.replace(/^kept requests: /, '')}`, check.fix, () => check.run(kept)),
    );
  }
  const report = storeCheckReport(options.name ?? 'ledger store', results);
  if (!report.ok && options.throwOnFailure !== false) throw new StoreCheckError(report);
  return report;
}

async function runCheck(name: string, fix: string, run: () => Promise<void>): Promise<StoreCheckResult> {
  try {
    await run();
    return { name, outcome: 'passed' };
  } catch (error) {
    return { name, outcome: 'failed', problem: error instanceof Error ? error.message : String(error), fix };
  }
}
