import {
  DeleteItemCommand,
  type DeleteItemCommandOutput,
  QueryCommand,
  type QueryCommandOutput,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { KeepLimits, KeptRequest, KeptRequestStore, KeptSummary } from 'webhook-cms-receiver';
import { errorName, type Send } from './calls.js';
import { conflictPause } from './context.js';
import { isLive, type Item, key, n, numberOf, s, stringOf, ttlOf } from './items.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/**
 * The most a kept request may take as one item: DynamoDB refuses items over 400 KB, and the
 * item's key and attributes need some of that. A bigger request is not kept (`keep` answers
 * false): it is answered 503 like one past the bounds, and the service retries it later.
 */
export const KEPT_ITEM_MAX_BYTES = 380_000;

const encoder = new TextEncoder();

/**
 * Requests kept during a rotation window, shared by every receiver on the table:
 * - a counter `pk = <prefix>kept`, `sk = count` (`count`, `bytes`, valid `until` the window
 *   ends), raised in the same transaction that writes a request, under a condition on both
 *   bounds, so they hold across instances;
 * - per request, a small index item in the same partition (`sk = r#<id>`, its token hash),
 *   which `list` reads with one Query, and the request itself under `pk = <prefix>kept#<id>`,
 *   read only by the one `take` that deletes its index item first.
 */
export function dynamoDbKeptRequests(
  send: Send,
  table: string,
  prefix: string,
  ready: () => Promise<void>,
  now: () => number = Date.now,
): KeptRequestStore {
  const partition = `${prefix}kept`;
  const counterKey = key(partition, 'count');
  const indexKey = (id: string) => key(partition, `r#${id}`);
  const bodyKey = (id: string) => key(`${prefix}kept#${id}`, 'request');

  const write = async (request: KeptRequest, json: string, size: number, limits: KeepLimits, fresh: boolean) => {
    const at = now();
    const until = Math.max(limits.until, at + 1);
    const counter: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Item } = fresh
      ? {
          UpdateExpression: 'SET #count = :one, #bytes = :size, #until = :until, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#until) OR #until <= :now',
          ExpressionAttributeValues: {
            ':one': n(1),
            ':size': n(size),
            ':until': n(until),
            ':ttl': ttlOf(until),
            ':now': n(at),
          },
        }
      : {
          UpdateExpression: 'SET #until = :until, #ttl = :ttl ADD #count :one, #bytes :size',
          ConditionExpression: '#until > :now AND #count < :maxCount AND #bytes <= :room',
          ExpressionAttributeValues: {
            ':one': n(1),
            ':size': n(size),
            ':until': n(until),
            ':ttl': ttlOf(until),
            ':now': n(at),
            ':maxCount': n(limits.maxCount),
            ':room': n(limits.maxBytes - size),
          },
        };
    const item = { until: n(until), [DYNAMODB_TTL_ATTRIBUTE]: ttlOf(until) };
    try {
      await send(
        'keep a request',
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: counterKey,
                ...counter,
                ExpressionAttributeNames: {
                  '#count': 'count',
                  '#bytes': 'bytes',
                  '#until': 'until',
                  '#ttl': DYNAMODB_TTL_ATTRIBUTE,
                },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: table,
                Item: { ...indexKey(request.id), token: s(request.tokenSha256), size: n(size), ...item },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: table, Item: { ...bodyKey(request.id), request: s(json), ...item } } },
          ],
        }),
      );
      return 'kept' as const;
    } catch (error) {
      if (errorName(error) !== 'TransactionCanceledException') throw error;
      const reasons = (error as { CancellationReasons?: { Code?: string; Item?: Item }[] }).CancellationReasons ?? [];
      const [counterReason, indexReason] = reasons;
      if (indexReason?.Code === 'ConditionalCheckFailed') return 'full' as const; // kept already
      if (counterReason?.Code !== 'ConditionalCheckFailed') return 'conflict' as const;
      if (!isLive(counterReason.Item, at)) return 'stale counter' as const;
      // A live counter: past a bound, or started by another instance a moment ago.
      return fresh ? ('live counter' as const) : ('full' as const);
    }
  };

  return {
    async keep(request, limits) {
      const json = JSON.stringify(request);
      const size = encoder.encode(json).byteLength;
      if (size > KEPT_ITEM_MAX_BYTES || size > limits.maxBytes || limits.maxCount < 1) return false;
      await ready();
      let fresh = false;
      // Instances keeping at the same moment meet on the counter item: each conflict is tried again.
      for (let attempt = 0; attempt < 16; attempt++) {
        const result = await write(request, json, size, limits, fresh);
        if (result === 'kept') return true;
        if (result === 'full') return false;
        if (result === 'conflict') await conflictPause();
        else fresh = result === 'stale counter';
      }
      return false;
    },
    async list() {
      await ready();
      const at = now();
      const kept: KeptSummary[] = [];
      for (const item of await indexItems(send, table, partition)) {
        if (!isLive(item, at)) continue;
        kept.push({ id: stringOf(item, 'sk')!.slice(2), tokenSha256: stringOf(item, 'token')! });
      }
      return kept;
    },
    async take(id) {
      await ready();
      let index: Item | undefined;
      try {
        const deleted = await send<DeleteItemCommandOutput>(
          'take a kept request',
          new DeleteItemCommand({
            TableName: table,
            Key: indexKey(id),
            ConditionExpression: 'attribute_exists(pk) AND #until > :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': n(now()) },
            ReturnValues: 'ALL_OLD',
          }),
        );
        index = deleted.Attributes;
      } catch (error) {
        if (errorName(error) === 'ConditionalCheckFailedException') return undefined;
        throw error;
      }
      const body = await send<DeleteItemCommandOutput>(
        'take a kept request',
        new DeleteItemCommand({ TableName: table, Key: bodyKey(id), ReturnValues: 'ALL_OLD' }),
      );
      await lower(send, table, counterKey, numberOf(index, 'size') ?? 0);
      const json = stringOf(body.Attributes, 'request');
      return json === undefined ? undefined : (JSON.parse(json) as KeptRequest);
    },
    async clear() {
      await ready();
      let dropped = 0;
      const items = await indexItems(send, table, partition);
      for (let i = 0; i < items.length; i += 16) {
        const counts = await Promise.all(
          items.slice(i, i + 16).map(async (item) => {
            const id = stringOf(item, 'sk')!.slice(2);
            // Counted by whichever instance deleted it (the delete is conditional on the item
            // being there), so two clears at once never count one twice.
            const deleted = await send(
              'drop a kept request',
              new DeleteItemCommand({
                TableName: table,
                Key: indexKey(id),
                ConditionExpression: 'attribute_exists(pk)',
              }),
            ).then(
              () => 1,
              (error: unknown) => (errorName(error) === 'ConditionalCheckFailedException' ? 0 : Promise.reject(error)),
            );
            await send('drop a kept request', new DeleteItemCommand({ TableName: table, Key: bodyKey(id) }));
            return deleted;
          }),
        );
        for (const count of counts) dropped += count;
      }
      await send('drop a kept request', new DeleteItemCommand({ TableName: table, Key: counterKey }));
      return dropped;
    },
  };
}

async function indexItems(send: Send, table: string, partition: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page: QueryCommandOutput = await send(
      'list kept requests',
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :request)',
        ExpressionAttributeValues: { ':pk': s(partition), ':request': s('r#') },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey as Item | undefined;
  } while (start);
  return items;
}

/** Takes a request's share off the counter; a counter already reset for a new window stays as it is. */
async function lower(send: Send, table: string, counterKey: Item, size: number): Promise<void> {
  try {
    await send(
      'take a kept request',
      new UpdateItemCommand({
        TableName: table,
        Key: counterKey,
        UpdateExpression: 'ADD #count :minusOne, #bytes :minusSize',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count', '#bytes': 'bytes' },
        ExpressionAttributeValues: { ':minusOne': n(-1), ':minusSize': n(-size), ':zero': n(0) },
      }),
    );
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
  }
}
