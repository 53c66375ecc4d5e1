import { createLedger, type Ledger, type LedgerOptions } from 'webhook-cms-receiver';
import type { DynamoDbClientLike } from './calls.js';
import { dynamoDbLedgerStore } from './ledger-store.js';
import { type DynamoDbTableInput, dynamoDbTableInput } from './table-input.js';

/**
 * The table name {@link dynamoDbLedgerTableInput} uses when none is given: `webhook-ledger`.
 *
 * @example
 * ```ts
 * const ledger = dynamoDbLedger(client, { table: DEFAULT_DYNAMODB_LEDGER_TABLE });
 * ```
 */
export const DEFAULT_DYNAMODB_LEDGER_TABLE = 'webhook-ledger';

/**
 * Options of {@link dynamoDbLedger}: every ledger's, and where its items live.
 *
 * @example
 * ```ts
 * const options: DynamoDbLedgerOptions = { table: 'webhook-ledger', retentionMs: 7 * 86_400_000, keepRefused: true };
 * const ledger = dynamoDbLedger(new DynamoDBClient({}), options);
 * ```
 */
export interface DynamoDbLedgerOptions extends LedgerOptions {
  /**
   * The table, created from `dynamoDbLedgerTableInput(table)` with Time to Live on `expiresAt`.
   * The dedup store's table has the same key schema and works too.
   */
  table: string;
  /** Prepended to every partition key, so ledgers that must not share rows can share a table. Default none. */
  keyPrefix?: string;
  /** The most one DynamoDB call may take, SDK retries included. Default 10 s: nothing waits on a ledger write. */
  requestTimeoutMs?: number;
  /** Check once that the table exists with Time to Live on `expiresAt` (`dynamodb:DescribeTimeToLive`). Default true. */
  checkTable?: boolean;
}

/**
 * A delivery ledger in a DynamoDB table, shared by every Lambda container and process, for
 * `@aws-sdk/client-dynamodb`'s `DynamoDBClient`. Rows are buffered and written in batches
 * (BatchWriteItem, items DynamoDB leaves unprocessed sent again); `copy` comes from one
 * counter per delivery id (UpdateItem ADD); every item expires with the retention through the
 * table's TTL. A table that is down or throttled costs a `warn` line and rows retried from a
 * bounded buffer, never an answer. In a Lambda, call `await ledger.flush()` before the
 * handler returns, or rows wait for the next invocation.
 *
 * The role needs dynamodb:BatchWriteItem, UpdateItem, GetItem, Query, PutItem, DeleteItem,
 * TransactWriteItems (kept refusals) and DescribeTimeToLive on the table.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { dynamoDbLedger } from 'webhook-cms-receiver/dynamodb';
 *
 * const ledger = dynamoDbLedger(new DynamoDBClient({}), { table: 'webhook-ledger', keepRefused: true });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * const { rows } = await ledger.list({ article: 'a-42' });
 * ```
 */
export function dynamoDbLedger(client: DynamoDbClientLike, options: DynamoDbLedgerOptions): Ledger {
  const { table, keyPrefix, requestTimeoutMs, checkTable, ...ledgerOptions } = options ?? ({} as DynamoDbLedgerOptions);
  const store = dynamoDbLedgerStore(client, {
    table,
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(checkTable !== undefined ? { checkTable } : {}),
    ...(ledgerOptions.retentionMs !== undefined ? { retentionMs: ledgerOptions.retentionMs } : {}),
    ...(ledgerOptions.now !== undefined ? { now: ledgerOptions.now } : {}),
  });
  return createLedger(store, ledgerOptions);
}

/**
 * The `CreateTable` input for a ledger's table: the dedup store's key schema (string `pk`
 * and `sk`), on-demand billing, named `webhook-ledger` by default. Enable TTL on it with
 * `dynamoDbTimeToLiveInput(table)`.
 *
 * @example
 * ```ts
 * import { CreateTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
 * import { dynamoDbLedgerTableInput, dynamoDbTimeToLiveInput } from 'webhook-cms-receiver/dynamodb';
 *
 * await client.send(new CreateTableCommand(dynamoDbLedgerTableInput()));
 * await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput('webhook-ledger')));
 * ```
 */
export function dynamoDbLedgerTableInput(table: string = DEFAULT_DYNAMODB_LEDGER_TABLE): DynamoDbTableInput {
  return dynamoDbTableInput(table);
}
