import {
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  GetItemCommand,
  type GetItemCommandOutput,
  QueryCommand,
  type QueryCommandOutput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Send } from './calls.js';
import type { Item } from './items.js';
import { DYNAMODB_SORT_KEY } from './table-input.js';

/** BatchWriteItem's most requests per call. */
const BATCH_ITEMS = 25;
/** Batch calls in flight at once for one append or prune. */
const PARALLEL = 8;
/** Rounds of unprocessed items sent again before the write fails (and the ledger retries it later). */
const UNPROCESSED_ROUNDS = 8;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A write or delete of one item, as BatchWriteItem takes it. */
export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/**
 * Writes every request with BatchWriteItem, 25 to a call and up to 8 calls at once. Items
 * DynamoDB leaves unprocessed (it throttles per partition) are sent again after a growing
 * pause; still unprocessed after 8 rounds, the write rejects and the ledger retries the batch.
 */
export async function batchWrite(send: Send, table: string, requests: readonly WriteRequest[]): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_ITEMS) chunks.push(requests.slice(i, i + BATCH_ITEMS));
  await inParallel(chunks, async (chunk) => {
    let pending = chunk;
    for (let round = 0; pending.length > 0; round++) {
      if (round === UNPROCESSED_ROUNDS) {
        throw new Error(
          `dynamoDbLedger: DynamoDB left ${pending.length} item(s) unprocessed after ${round} rounds (throttled); ` +
            'the rows are retried later. Raise the table’s capacity, or use on-demand billing.',
        );
      }
      if (round > 0) await sleep(Math.min(1000, 25 * 2 ** round) * (0.5 + Math.random() / 2));
      const output = await send<BatchWriteItemCommandOutput>(
        'write ledger rows (dynamodb:BatchWriteItem)',
        new BatchWriteItemCommand({ RequestItems: { [table]: pending } }),
      );
      pending = (output.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    }
  });
}

/**
 * Runs `step` on every item, at most 8 at once: a batch of 500 rows names up to 500 delivery
 * ids, and that many calls at once would queue behind the SDK's sockets until their time
 * limit passed.
 */
export async function inParallel<T>(items: readonly T[], step: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await step(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** What {@link queryItems} reads: one partition, a sort key range, in one direction. */
export interface PartitionRange {
  pk: string;
  /** Sort keys at or above this one. */
  from?: string;
  /** Sort keys below this one. */
  below?: string;
  newestFirst: boolean;
  /** Items per call. */
  pageSize: number;
}

/** The items of a partition within the range, read page by page (strongly consistent, so a write is seen at once). */
export async function* queryItems(send: Send, table: string, range: PartitionRange): AsyncGenerator<Item> {
  const names: Record<string, string> = { '#pk': 'pk' };
  const values: Item = { ':pk': { S: range.pk } };
  let condition = '#pk = :pk';
  if (range.from !== undefined || range.below !== undefined) names['#sk'] = DYNAMODB_SORT_KEY;
  if (range.from !== undefined) values[':from'] = { S: range.from };
  if (range.below !== undefined) values[':below'] = { S: range.below };
  if (range.from !== undefined && range.below !== undefined) condition += ' AND #sk BETWEEN :from AND :below';
  else if (range.from !== undefined) condition += ' AND #sk >= :from';
  else if (range.below !== undefined) condition += ' AND #sk < :below';
  let start: Item | undefined;
  do {
    const output: QueryCommandOutput = await send<QueryCommandOutput>(
      'read ledger rows (dynamodb:Query)',
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: !range.newestFirst,
        ConsistentRead: true,
        Limit: range.pageSize,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of (output.Items ?? []) as Item[]) {
      // BETWEEN includes its upper bound, which `below` excludes.
      if (range.below !== undefined && item[DYNAMODB_SORT_KEY]?.S === range.below) continue;
      yield item;
    }
    start = output.LastEvaluatedKey as Item | undefined;
  } while (start);
}

/** Reads one item, strongly consistent. */
export async function getItem(send: Send, table: string, key: Item): Promise<Item | undefined> {
  const output = await send<GetItemCommandOutput>(
    'read the ledger’s days (dynamodb:GetItem)',
    new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }),
  );
  return output.Item as Item | undefined;
}

/** An UpdateItem, resolved to the attributes it left (`UPDATED_NEW`). */
export async function updateItem(
  send: Send,
  table: string,
  input: {
    Key: Item;
    UpdateExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues?: Item;
  },
): Promise<Item> {
  const output = await send<{ Attributes?: Item }>(
    'count ledger rows (dynamodb:UpdateItem)',
    new UpdateItemCommand({ TableName: table, ...input, ReturnValues: 'UPDATED_NEW' }),
  );
  return output.Attributes ?? {};
}
