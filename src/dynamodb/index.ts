/**
 * A dedup store shared by every Lambda container and process through one DynamoDB table, for
 * `@aws-sdk/client-dynamodb`'s `DynamoDBClient`: no VPC, no connection to keep, one
 * conditional write per claim, with stale-delivery ordering and kept requests.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';
 *
 * const receiver = createReceiver({
 *   token,
 *   dedup: dynamoDbDedupStore(new DynamoDBClient({}), { table: 'webhook-deliveries' }),
 * });
 * ```
 * @module webhook-cms-receiver/dynamodb
 */
export { dynamoDbDedupStore, type DynamoDbDedupStoreOptions } from './dynamodb-store.js';
export type { DynamoDbClientLike } from './calls.js';
export {
  dynamoDbTableInput,
  dynamoDbTimeToLiveInput,
  DYNAMODB_TTL_ATTRIBUTE,
  DYNAMODB_PARTITION_KEY,
  DYNAMODB_SORT_KEY,
  DEFAULT_DYNAMODB_TABLE,
  type DynamoDbTableInput,
  type DynamoDbTimeToLiveInput,
} from './table-input.js';
export { KEPT_ITEM_MAX_BYTES } from './kept-store.js';
export {
  dynamoDbLedger,
  dynamoDbLedgerTableInput,
  DEFAULT_DYNAMODB_LEDGER_TABLE,
  type DynamoDbLedgerOptions,
} from './dynamodb-ledger.js';
export { dynamoDbLedgerStore, type DynamoDbLedgerStoreOptions } from './ledger-store.js';
