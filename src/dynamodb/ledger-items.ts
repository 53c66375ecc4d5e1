import type { LedgerEntry, LedgerRow } from 'webhook-cms-receiver';
import { storedId } from '../dedup/stored-ids.js';
import { type Item, key, s, ttlOf } from './items.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/**
 * The ledger's items in one table (the dedup store's key schema, so it may share that table),
 * under `<keyPrefix>ledger…` partitions, every sort key a row id (ids sort by time):
 * - each row under its UTC day, `pk = ledger#<yyyy-mm-dd>`, its JSON in `row`;
 * - a copy for each lookup a list makes by value: `ledger-a#<article>`, `ledger-d#<delivery
 *   id>`, `ledger-r#<refused row id>` (rows `recover()` wrote), so one Query reads an article's
 *   history or a delivery's copies without a secondary index;
 * - per tenant and delivery id, `ledger-copy#…` / `copy`: the copies on record (`copy`);
 * - `ledger-meta` / `meta`: the days with rows (`days`, a string set) and the rows per prune
 *   bound (`u` refusals, `v` and `v=<tenant>` verified rows), so `prune` reads only when a bound
 *   is passed, and lists query only days that hold rows.
 * Ids are written as `storedId` gives them (long ids hashed), within DynamoDB's key sizes.
 * Every item but the meta expires `retentionMs` after it was written (`expiresAt`, the table's TTL).
 */
export interface LedgerKeys {
  day(receivedAt: number): string;
  dayOfPartition(pk: string): string;
  indexes(row: Pick<LedgerRow, 'articleId' | 'deliveryId' | 'recoveredFrom'>): Promise<string[]>;
  copy(row: Pick<LedgerEntry, 'tenant' | 'deliveryId'>): Promise<string>;
  article(id: string): Promise<string>;
  delivery(id: string): Promise<string>;
  recovered(id: string): Promise<string>;
  meta: Item;
}

/** The key layout for a `keyPrefix`. */
export function ledgerKeys(prefix: string): LedgerKeys {
  const base = `${prefix}ledger`;
  const stored = async (id: string) => storedId(id);
  const keys: LedgerKeys = {
    day: (receivedAt) => `${base}#${dayOf(receivedAt)}`,
    dayOfPartition: (pk) => pk.slice(base.length + 1),
    article: async (id) => `${base}-a#${await stored(id)}`,
    delivery: async (id) => `${base}-d#${await stored(id)}`,
    recovered: async (id) => `${base}-r#${await stored(id)}`,
    async indexes(row) {
      const partitions: string[] = [];
      if (row.articleId !== null) partitions.push(await keys.article(row.articleId));
      if (row.deliveryId !== null) partitions.push(await keys.delivery(row.deliveryId));
      if (row.recoveredFrom !== undefined) partitions.push(await keys.recovered(row.recoveredFrom));
      return partitions;
    },
    async copy({ tenant, deliveryId }) {
      const owner = tenant === null ? '' : `=${await stored(tenant)}`;
      return `${base}-copy#${owner.length}:${owner}${await stored(deliveryId ?? '')}`;
    },
    meta: key(`${base}-meta`, 'meta'),
  };
  return keys;
}

/** The UTC day of a time, `yyyy-mm-dd`: a row's partition. */
export function dayOf(time: number): string {
  return new Date(Math.max(0, time)).toISOString().slice(0, 10);
}

/** The start of a `yyyy-mm-dd` day, epoch ms. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The lowest id of a row received at `time`: `r.` and 13 digits. */
export function idAt(time: number): string {
  return `r.${String(Math.max(0, time)).padStart(13, '0')}`;
}

/** When a row id's row was received (its 13 digits), epoch ms. */
export function timeOfId(id: string): number {
  return Number(id.slice(2, 15));
}

/**
 * The item of a row under one partition: its id as sort key, its JSON, its expiry (epoch ms).
 * `prune` drops rows by `receivedAt`; the TTL is the backstop when nothing prunes.
 */
export function rowItem(pk: string, row: LedgerRow, expiresAt: number): Item {
  return { ...key(pk, row.id), row: s(JSON.stringify(row)), [DYNAMODB_TTL_ATTRIBUTE]: ttlOf(expiresAt) };
}

/**
 * When an item written now expires: a retention from now on the real clock, which DynamoDB's
 * TTL runs on. Not from `receivedAt`: a row written late, or with a test's clock, would be
 * born expired and deleted at any moment, before `prune` or a list saw it.
 */
export function expiryOf(retentionMs: number): number {
  return Date.now() + retentionMs;
}

/** The row an item holds. */
export function rowOf(item: Item): LedgerRow | undefined {
  const json = item.row?.S;
  return json === undefined ? undefined : (JSON.parse(json) as LedgerRow);
}

/** The meta attribute that counts rows of a prune bound: `u` for refusals, `v` / `v=<tenant>` for verified rows. */
export function boundOf(row: Pick<LedgerRow, 'verified' | 'tenant'>): string {
  if (!row.verified) return 'u';
  return row.tenant === null ? 'v' : `v=${row.tenant}`;
}
