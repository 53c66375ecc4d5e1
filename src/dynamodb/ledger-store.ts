import {
  DEFAULT_LEDGER_RETENTION_MS,
  type LedgerFilter,
  type LedgerHour,
  type LedgerRow,
  type LedgerStore,
  ledgerOutcome,
  matchesLedgerFilter,
} from 'webhook-cms-receiver';
import { ledgerRetention } from '../internal/ledger-retention.js';
import { positiveOption } from '../internal/positive.js';
import { type DynamoDbClientLike, type Send, sender } from './calls.js';
import { dynamoDbKeptRequests } from './kept-store.js';
import { batchWrite, getItem, queryItems, type WriteRequest } from './ledger-calls.js';
import type { LedgerContext } from './ledger-context.js';
import { copyCounter } from './ledger-copies.js';
import { dayOf, expiryOf, idAt, ledgerKeys, rowItem, rowOf, timeOfId } from './ledger-items.js';
import { pruneLedger } from './ledger-prune.js';
import { checkedTableName } from './table-input.js';
import { tableCheck } from './table-check.js';

/**
 * Options of {@link dynamoDbLedgerStore}.
 *
 * @example
 * ```ts
 * const store = dynamoDbLedgerStore(client, { table: 'webhook-deliveries', keyPrefix: 'site-a:' });
 * ```
 */
export interface DynamoDbLedgerStoreOptions {
  /** The table, created from `dynamoDbLedgerTableInput(table)` (or the dedup store's own table) with Time to Live on `expiresAt`. */
  table: string;
  /** Prepended to every partition key, so ledgers that must not share rows can share a table. Default none. */
  keyPrefix?: string;
  /** The ledger's retention, in ms: each item's expiry (`expiresAt`). Default 30 days. */
  retentionMs?: number;
  /** The most one call may take, SDK retries included. Default 10 s: nothing waits on a ledger write. */
  requestTimeoutMs?: number;
  /** Check once that the table exists with Time to Live on `expiresAt`. Default true. */
  checkTable?: boolean;
  /** The clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

const HOUR_MS = 3_600_000;

/**
 * The {@link LedgerStore} of `dynamoDbLedger`: rows in one DynamoDB table, shared by every
 * instance and Lambda container. An append is two steps: the copy counters and the meta
 * item (UpdateItem ADD, in parallel), then every item with BatchWriteItem (25 per call, in
 * parallel, unprocessed items sent again). Lists query one partition per lookup (article,
 * delivery id) or the days in range, newest first.
 *
 * @example
 * ```ts
 * import { createLedger } from 'webhook-cms-receiver';
 * import { dynamoDbLedgerStore } from 'webhook-cms-receiver/dynamodb';
 * const ledger = createLedger(dynamoDbLedgerStore(new DynamoDBClient({}), { table: 'webhook-ledger' }));
 * ```
 */
export function dynamoDbLedgerStore(client: DynamoDbClientLike, options: DynamoDbLedgerStoreOptions): LedgerStore {
  const table = checkedTableName(options?.table, 'dynamoDbLedger');
  const retentionMs = ledgerRetention(options.retentionMs, DEFAULT_LEDGER_RETENTION_MS, 'dynamoDbLedger: retentionMs');
  const timeoutMs = positiveOption(options.requestTimeoutMs, 10_000, 'dynamoDbLedger: requestTimeoutMs');
  const prefix = options.keyPrefix ?? '';
  if (typeof prefix !== 'string' || new TextEncoder().encode(prefix).byteLength > 256) {
    throw new TypeError('dynamoDbLedger: keyPrefix must be a string of at most 256 bytes.');
  }
  let base: Send;
  try {
    base = sender(client, table, timeoutMs);
  } catch (error) {
    throw new TypeError(String((error as Error).message).replace('dynamoDbDedupStore', 'dynamoDbLedger'));
  }
  const send = ledgerSend(base);
  const check = tableCheck(send, table, options.checkTable !== false);
  const ready = () => check().catch((error: unknown) => Promise.reject(relabel(error)));
  const keys = ledgerKeys(prefix);
  const context: LedgerContext = {
    send,
    table,
    keys,
    retentionMs,
    async days() {
      const meta = await getItem(send, table, keys.meta);
      return [...(meta?.days?.SS ?? [])].sort().reverse();
    },
  };

  const countCopies = copyCounter(context);

  return {
    async append(entries) {
      if (entries.length === 0) return;
      await ready();
      const copies = await countCopies(entries);
      const expiresAt = expiryOf(retentionMs);
      const requests: WriteRequest[] = [];
      for (const [i, entry] of entries.entries()) {
        const row: LedgerRow = { ...entry, copy: copies[i]! };
        const partitions = [keys.day(row.receivedAt), ...(await keys.indexes(row))];
        for (const pk of partitions) requests.push({ PutRequest: { Item: rowItem(pk, row, expiresAt) } });
      }
      await batchWrite(send, table, requests);
    },
    async list(filter) {
      await ready();
      const rows: LedgerRow[] = [];
      for await (const row of scanRows(context, filter)) {
        if (rows.length === filter.limit) return { rows, next: rows[rows.length - 1]!.id };
        rows.push(row);
      }
      return { rows };
    },
    async summary({ since, until, tenant }) {
      await ready();
      const hours = new Map<number, LedgerHour>();
      const range: LedgerFilter = { since, until, limit: 1000 };
      if (tenant !== undefined) range.tenant = tenant;
      for await (const row of scanRows(context, range)) {
        const hour = Math.floor(row.receivedAt / HOUR_MS) * HOUR_MS;
        let counts = hours.get(hour);
        if (!counts) hours.set(hour, (counts = { hour, delivered: 0, refused: 0, rejected: 0, failed: 0 }));
        counts[ledgerOutcome(row.status)]++;
      }
      return [...hours.values()].sort((a, b) => a.hour - b.hour);
    },
    async prune(limits) {
      await ready();
      return pruneLedger(context, limits);
    },
    refusals: dynamoDbKeptRequests(send, table, `${prefix}ledger-refused:`, ready, options.now),
  };
}

/**
 * The matching rows, newest first: from the one partition a lookup names (article, delivery
 * id, recovered row), or else the days in range, each row checked against the whole filter.
 */
export async function* scanRows(context: LedgerContext, filter: LedgerFilter): AsyncGenerator<LedgerRow> {
  const { keys } = context;
  let below = filter.until === undefined ? undefined : idAt(Math.ceil(filter.until));
  if (filter.cursor !== undefined && (below === undefined || filter.cursor < below)) below = filter.cursor;
  const from = filter.since === undefined ? undefined : idAt(Math.floor(filter.since));
  let partitions: string[];
  if (filter.recoveredFrom !== undefined) partitions = [await keys.recovered(filter.recoveredFrom)];
  else if (filter.deliveryId !== undefined) partitions = [await keys.delivery(filter.deliveryId)];
  else if (filter.article !== undefined) partitions = [await keys.article(filter.article)];
  else {
    const first = from === undefined ? '' : dayOf(timeOfId(from));
    const last = below === undefined ? '9999-12-31' : dayOf(timeOfId(below));
    partitions = (await context.days())
      .filter((day) => day >= first && day <= last)
      .map((day) => keys.day(Date.parse(day)));
  }
  // A page that fits a list whose rows all match, and no fewer than 50: a filter may skip many.
  const pageSize = Math.min(1000, Math.max(50, filter.limit + 1));
  for (const pk of partitions) {
    const range = { pk, newestFirst: true, pageSize, ...(from ? { from } : {}), ...(below ? { below } : {}) };
    for await (const item of queryItems(context.send, context.table, range)) {
      const row = rowOf(item);
      if (row && matchesLedgerFilter(row, filter)) yield row;
    }
  }
}

/** The shared `send`, its errors naming this ledger rather than the dedup store. */
function ledgerSend(send: Send): Send {
  return async <Output>(step: string, command: object) => {
    try {
      return await send<Output>(step, command);
    } catch (error) {
      throw relabel(error);
    }
  };
}

/** The shared error explanations start with `dynamoDbDedupStore`: here they are about the ledger. */
function relabel(error: unknown): unknown {
  if (!(error instanceof Error) || !error.message.startsWith('dynamoDbDedupStore')) return error;
  return new Error(
    error.message
      .replace('dynamoDbDedupStore', 'dynamoDbLedger')
      .replace("dynamoDbTableInput('", "dynamoDbLedgerTableInput('"),
    {
      cause: error.cause,
    },
  );
}
