import type { ResendItem } from './ledger.js';
import type { LedgerRow } from './ledger-row.js';
import type { LedgerStore } from './ledger-store.js';

/** Refused rows read at most, a page of 1000 at a time: the morning after, not an archive. */
const MAX_ROWS = 20_000;

/**
 * The deliveries to re-send from the dashboard: refused (401 or 403) since `since` and with no
 * verified 2xx for the same article (or, for a refusal that named no article, the same
 * delivery id) received after the refusal. Newest refusal first.
 */
export async function resendList(store: LedgerStore, range: { since: number; tenant?: string }): Promise<ResendItem[]> {
  const items = new Map<string, ResendItem>();
  let cursor: string | undefined;
  for (let read = 0; read < MAX_ROWS; ) {
    const page = await store.list({
      since: range.since,
      verified: false,
      statusFrom: 401,
      statusTo: 403,
      limit: 1000,
      cursor,
    });
    for (const row of page.rows) add(items, row);
    read += page.rows.length;
    if (!page.next) break;
    cursor = page.next;
  }
  const open: ResendItem[] = [];
  for (const item of items.values()) {
    if (range.tenant !== undefined && !(await claimedBy(store, item, range.tenant))) continue;
    if (!(await deliveredSince(store, item))) open.push(item);
  }
  return open;
}

function add(items: Map<string, ResendItem>, row: LedgerRow): void {
  if (row.status !== 401 && row.status !== 403) return;
  const key =
    row.articleId !== null ? `a:${row.articleId}` : row.deliveryId !== null ? `d:${row.deliveryId}` : undefined;
  if (key === undefined) return;
  const item = items.get(key);
  // Rows come newest first: the first one seen is the last refusal.
  if (item) {
    item.refusals++;
    item.kept ||= row.kept === true;
    return;
  }
  items.set(key, {
    articleId: row.articleId,
    deliveryId: row.deliveryId,
    slug: row.slug,
    event: row.event,
    refusedAt: row.receivedAt,
    status: row.status,
    code: row.code,
    refusals: 1,
    kept: row.kept === true,
  });
}

async function deliveredSince(store: LedgerStore, item: ResendItem): Promise<boolean> {
  const target = item.articleId !== null ? { article: item.articleId } : { deliveryId: item.deliveryId! };
  const page = await store.list({
    ...target,
    since: item.refusedAt,
    verified: true,
    statusFrom: 200,
    statusTo: 299,
    limit: 1,
  });
  return page.rows.length > 0;
}

/** A refusal has no verified tenant: one whose article a tenant's verified rows name is that tenant's. */
async function claimedBy(store: LedgerStore, item: ResendItem, tenant: string): Promise<boolean> {
  if (item.articleId === null) return false;
  const page = await store.list({ article: item.articleId, tenant, verified: true, limit: 1 });
  return page.rows.length > 0;
}
