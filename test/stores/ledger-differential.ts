import { expect } from 'vitest';
import { type LedgerEntry, type LedgerFilter, type LedgerStore, memoryLedgerStore } from 'webhook-cms-receiver';

/**
 * A store compared with the memory store, the reference: the same 400 rows appended in
 * batches of 100, then every list (paged at 1, 7 and 1000), summaries over whole and partial
 * hours, a prune by time and bounds, and rows appended after the prune must read alike.
 * `afterAppend` sees each batch's index, to count the round trips one append took.
 */
export async function expectLikeMemoryStore(
  store: LedgerStore,
  afterAppend: (batch: number) => void = () => {},
): Promise<void> {
  const reference = memoryLedgerStore();
  const rows = entries(400);
  for (let i = 0; i < rows.length; i += 100) {
    await store.append(rows.slice(i, i + 100));
    afterAppend(i / 100);
    reference.append(rows.slice(i, i + 100));
  }
  for (const filter of filters) {
    for (const limit of [1, 7, 1000]) {
      expect(await pages(store, filter, limit), JSON.stringify({ filter, limit })).toEqual(
        await pages(reference, filter, limit),
      );
    }
  }
  expect((await store.list({ limit: 3 })).rows).toEqual((await reference.list({ limit: 3 })).rows);
  for (const range of [
    { since: START - HOUR, until: START + 11 * HOUR },
    { since: START + 30 * 60_000, until: START + 4 * HOUR + 1 },
    { since: START + HOUR + 5, until: START + HOUR + 50 * 60_000 },
    { since: START, until: START + 8 * HOUR, tenant: 'site-0' },
  ]) {
    expect(await store.summary(range), JSON.stringify(range)).toEqual(await reference.summary(range));
  }
  const limits = { before: START + 3 * HOUR, maxRowsPerTenant: 20, maxRefusedRows: 15 };
  expect(await store.prune(limits)).toBe(await reference.prune(limits));
  for (const filter of filters) expect(await pages(store, filter, 50)).toEqual(await pages(reference, filter, 50));
  const range = { since: START - HOUR, until: START + 11 * HOUR };
  expect(await store.summary(range)).toEqual(await reference.summary(range));
  // Copies count what is on record: after the prune, the next copy follows the rows left.
  const again = entries(400)
    .slice(350)
    .map((row) => ({ ...row, id: `${row.id.slice(0, -12)}ffff${row.id.slice(-8)}` }));
  await store.append(again);
  reference.append(again);
  expect(await pages(store, {}, 1000)).toEqual(await pages(reference, {}, 1000));
}

export const HOUR = 3_600_000;
export const START = Date.UTC(2026, 10, 1, 9, 17);

/** Rows over ten hours: three tenants and none, repeated delivery ids, every outcome, refusals. */
export function entries(count: number): LedgerEntry[] {
  const statuses = [200, 200, 200, 401, 403, 409, 503, 500, 202, 400];
  const made: LedgerEntry[] = [];
  for (let i = 0; i < count; i++) {
    const receivedAt = START + Math.floor((i * 10 * HOUR) / count);
    const status = statuses[i % statuses.length]!;
    const verified = status !== 401 && status !== 403;
    const random = (i * 7919).toString(16).padStart(12, '0').slice(-12);
    made.push({
      id: `r.${String(receivedAt).padStart(13, '0')}.${random}`,
      receivedAt,
      durationMs: i % 17,
      verified,
      deliveryId: i % 9 === 0 ? null : `d-${i % 23}`,
      event: i % 5 === 0 ? 'article.trash' : 'article.sync',
      articleId: i % 11 === 0 ? null : `a-${i % 13}{x}`,
      slug: `slug-${i}`,
      articleStatus: 'publish',
      profileId: null,
      tenant: verified && i % 4 !== 0 ? `site-${i % 3}` : null,
      status,
      code: status === 200 ? 'ok' : `code-${status}`,
      tokenIndex: verified ? 0 : null,
      publishedUrl: null,
      ...(i % 29 === 0 ? { recoveredFrom: 'r.0000000000001.000000000000' } : {}),
    });
  }
  return made;
}

const filters: Omit<LedgerFilter, 'limit'>[] = [
  {},
  { since: START + 2 * HOUR, until: START + 5 * HOUR + 123 },
  { statusFrom: 200, statusTo: 299 },
  { statusFrom: 401, statusTo: 401 },
  { verified: false },
  { verified: true, tenant: 'site-1' },
  { tenant: 'site-2', event: 'article.trash' },
  { article: 'a-3{x}' },
  { deliveryId: 'd-5' },
  { deliveryId: 'd-5', tenant: 'site-2' },
  { recoveredFrom: 'r.0000000000001.000000000000' },
  { article: 'a-4{x}', since: START + HOUR, statusFrom: 500, statusTo: 599 },
];

/** Every page of a list, as ids: both stores must page alike. */
async function pages(store: LedgerStore, filter: Omit<LedgerFilter, 'limit'>, limit: number) {
  const seen: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...filter, limit, ...(cursor ? { cursor } : {}) });
    seen.push(page.rows.map((row) => `${row.id}#${row.copy}`));
    cursor = page.next;
  } while (cursor && seen.length < 100);
  return seen;
}

/**
 * A batch written twice (the ledger retries a write whose answer was lost, though it landed)
 * is on record once: each row listed once, its copy and its hour counted once.
 */
export async function expectRetriedAppendOnce(store: LedgerStore): Promise<void> {
  const [first, second, third] = entries(3).map((row) => ({ ...row, deliveryId: 'd-retried', tenant: null }));
  await store.append([first!, second!]);
  await store.append([first!, second!]);
  await store.append([third!]);
  const { rows } = await store.list({ limit: 10 });
  expect(rows.map((row) => [row.id, row.copy])).toEqual([
    [third!.id, 3],
    [second!.id, 2],
    [first!.id, 1],
  ]);
  const hours = await store.summary({ since: START - HOUR, until: START + 11 * HOUR });
  expect(hours.reduce((sum, hour) => sum + hour.delivered + hour.refused + hour.rejected + hour.failed, 0)).toBe(3);
}
