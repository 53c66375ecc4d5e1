/**
 * The attribute DynamoDB's Time to Live reads on every item of the table: the item's expiry in
 * Unix seconds. Enable TTL on it (see {@link dynamoDbTimeToLiveInput}); the store checks once
 * per store that it is enabled. DynamoDB deletes expired items late (often within days), so the
 * store also treats an item past its expiry as absent when it reads it.
 *
 * @example
 * ```ts
 * // AWS CLI: aws dynamodb update-time-to-live --table-name webhook-deliveries \
 * //   --time-to-live-specification Enabled=true,AttributeName=expiresAt
 * console.log(DYNAMODB_TTL_ATTRIBUTE); // 'expiresAt'
 * ```
 */
export const DYNAMODB_TTL_ATTRIBUTE = 'expiresAt';

/** The partition key attribute (string): what an item is about (`d#<delivery id>`, `a#<article id>`, `kept`). */
export const DYNAMODB_PARTITION_KEY = 'pk';
/** The sort key attribute (string): which item of that partition (`delivery`, `mark`, `run`, a kept request). */
export const DYNAMODB_SORT_KEY = 'sk';

/**
 * What {@link dynamoDbTableInput} returns: the fields of `CreateTableCommandInput` it sets,
 * declared here so this entry's types need none of the SDK's (nor Node's, which they pull in).
 */
export interface DynamoDbTableInput {
  TableName: string;
  KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  AttributeDefinitions: { AttributeName: string; AttributeType: 'S' }[];
  BillingMode: 'PAY_PER_REQUEST';
}

/** What {@link dynamoDbTimeToLiveInput} returns: an `UpdateTimeToLiveCommandInput`. */
export interface DynamoDbTimeToLiveInput {
  TableName: string;
  TimeToLiveSpecification: { Enabled: true; AttributeName: string };
}

/** The table name used when `table` is left out: `webhook-deliveries`. */
export const DEFAULT_DYNAMODB_TABLE = 'webhook-deliveries';

/**
 * The `CreateTable` input for the store's table: a string partition key `pk`, a string sort key
 * `sk`, on-demand billing (`PAY_PER_REQUEST`: no capacity to plan, and a webhook burst is never
 * throttled by a provisioned limit). Pass it to `CreateTableCommand`, then enable TTL with
 * {@link dynamoDbTimeToLiveInput}; or declare the same table in SAM, CloudFormation or CDK
 * (docs/stores.md).
 *
 * @example
 * ```ts
 * import { CreateTableCommand, UpdateTimeToLiveCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
 * import { dynamoDbTableInput, dynamoDbTimeToLiveInput } from 'webhook-cms-receiver/dynamodb';
 *
 * await client.send(new CreateTableCommand(dynamoDbTableInput('webhook-deliveries')));
 * await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: 'webhook-deliveries' });
 * await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput('webhook-deliveries')));
 * ```
 */
export function dynamoDbTableInput(table: string = DEFAULT_DYNAMODB_TABLE): DynamoDbTableInput {
  return {
    TableName: checkedTableName(table, 'dynamoDbTableInput'),
    KeySchema: [
      { AttributeName: DYNAMODB_PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: DYNAMODB_SORT_KEY, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: DYNAMODB_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: DYNAMODB_SORT_KEY, AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/**
 * The `UpdateTimeToLive` input that turns on Time to Live for the store's table, on
 * {@link DYNAMODB_TTL_ATTRIBUTE}: the companion of {@link dynamoDbTableInput}. Without it
 * nothing is ever deleted, and the store refuses the table at first use.
 *
 * @example
 * ```ts
 * await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput('webhook-deliveries')));
 * ```
 */
export function dynamoDbTimeToLiveInput(table: string = DEFAULT_DYNAMODB_TABLE): DynamoDbTimeToLiveInput {
  return {
    TableName: checkedTableName(table, 'dynamoDbTimeToLiveInput'),
    TimeToLiveSpecification: { Enabled: true, AttributeName: DYNAMODB_TTL_ATTRIBUTE },
  };
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** DynamoDB's own rule for a table name, checked where the mistake is made rather than at the first delivery. */
export function checkedTableName(table: unknown, caller: string): string {
  if (typeof table === 'string' && TABLE_NAME.test(table)) return table;
  const got = typeof table === 'string' ? JSON.stringify(table) : typeof table;
  throw new TypeError(
    `${caller}: table must be a DynamoDB table name (3 to 255 characters of a-z, A-Z, 0-9, "_", "-", "."), got ${got}.`,
  );
}
