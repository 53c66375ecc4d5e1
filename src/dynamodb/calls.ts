import { describeThrown } from '../internal/describe.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/** A command of `@aws-sdk/client-dynamodb` (`new PutItemCommand(…)`, …). */
type Command = object;

/**
 * The part of a `DynamoDBClient` (from `@aws-sdk/client-dynamodb` v3) the store uses. Declared
 * here, not imported, so this entry's types need none of the SDK's (nor Node's, which they
 * pull in); any `DynamoDBClient` fits.
 */
export interface DynamoDbClientLike {
  send(command: never, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

/** Sends one command with the store's time limit and explains the errors whose fix is the user's. */
export type Send = <Output>(step: string, command: Command) => Promise<Output>;

// Throttling names DynamoDB and the SDK use; the SDK already retried them before we see one.
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
]);

/**
 * True for a failure that may pass on its own (throttling, a 5xx, a lost connection, a
 * timeout), as opposed to a refusal (a failed condition, a missing table, a denied action)
 * that the same call would meet again.
 */
export function isTransient(error: unknown): boolean {
  const e = error as {
    name?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: number };
    cause?: unknown;
  } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.cause !== undefined && isTransient(e.cause)) return true;
  if (typeof e.name === 'string' && (THROTTLED.has(e.name) || UNANSWERED.has(e.name))) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  // The SDK's metadata without an HTTP status: the request never got an answer.
  const status = e.$metadata?.httpStatusCode;
  return e.$metadata !== undefined && (status === undefined || status >= 500);
}

const UNANSWERED = new Set(['TimeoutError', 'AbortError']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The name the SDK gives a service error (`ConditionalCheckFailedException`, …). */
export function errorName(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The store's `send`: each call is bounded by `requestTimeoutMs` (an abort signal, so a hung
 * connection is a failure the receiver answers 503, never a delivery left waiting), and
 * errors with a fix on the user's side are wrapped in one that names it (original as `cause`).
 */
export function sender(client: DynamoDbClientLike, table: string, requestTimeoutMs: number): Send {
  if (!client || typeof (client as { send?: unknown }).send !== 'function') {
    throw new TypeError(
      'dynamoDbDedupStore: client must be a DynamoDBClient from @aws-sdk/client-dynamodb ' +
        '(`new DynamoDBClient({})`), got ' +
        (client === null ? 'null' : typeof client) +
        '.',
    );
  }
  return async <Output>(step: string, command: Command): Promise<Output> => {
    try {
      return (await client.send(command as never, { abortSignal: AbortSignal.timeout(requestTimeoutMs) })) as Output;
    } catch (error) {
      throw explainDynamoDbError(error, table, step, requestTimeoutMs);
    }
  };
}

/** Wraps a missing table, a denied action or a table of another shape in an error that names the fix. */
export function explainDynamoDbError(error: unknown, table: string, step: string, requestTimeoutMs?: number): unknown {
  const name = errorName(error);
  const fix = fixFor(name, table, error, requestTimeoutMs);
  if (!fix) return error;
  return new Error(`dynamoDbDedupStore could not ${step} in table ${table}: ${describeThrown(error)}. ${fix}`, {
    cause: error,
  });
}

function fixFor(name: string | undefined, table: string, error: unknown, timeoutMs?: number): string | undefined {
  switch (name) {
    case 'ResourceNotFoundException':
      return (
        `The table ${table} does not exist in this client's region and account. Create it with ` +
        `\`client.send(new CreateTableCommand(dynamoDbTableInput('${table}')))\` and ` +
        `\`new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput('${table}'))\` (webhook-cms-receiver/dynamodb), ` +
        "or declare it in your SAM, CloudFormation or CDK template (docs/stores.md); check the client's region."
      );
    case 'AccessDeniedException':
    case 'UnrecognizedClientException':
      return (
        `Allow the function's role dynamodb:PutItem, UpdateItem, DeleteItem, GetItem, Query, ConditionCheckItem ` +
        `and DescribeTimeToLive on the table ${table} (docs/stores.md lists the policy).`
      );
    case 'ValidationException':
      if (!/key|schema/i.test(describeThrown(error))) return undefined;
      return (
        `The table ${table} has another key schema than this store's (a string partition key "pk" and a string ` +
        `sort key "sk"): it belongs to something else. Give the store another \`table\` created from dynamoDbTableInput().`
      );
    case 'TimeoutError':
    case 'AbortError':
      return timeoutMs === undefined
        ? undefined
        : `DynamoDB did not answer within requestTimeoutMs (${timeoutMs} ms); the service retries the delivery.`;
    default:
      return undefined;
  }
}

/** The error for a table whose Time to Live is off, or on another attribute. */
export function timeToLiveError(table: string, status: string | undefined, attribute: string | undefined): Error {
  const found =
    status === 'ENABLED' || status === 'ENABLING'
      ? `Time to Live is on for attribute "${attribute}"`
      : `Time to Live is ${String(status ?? 'off').toLowerCase()}`;
  return new Error(
    `dynamoDbDedupStore: on table ${table}, ${found}, but the store writes each item's expiry to ` +
      `"${DYNAMODB_TTL_ATTRIBUTE}"; without it handled deliveries are never deleted. Enable it: ` +
      `\`aws dynamodb update-time-to-live --table-name ${table} --time-to-live-specification ` +
      `Enabled=true,AttributeName=${DYNAMODB_TTL_ATTRIBUTE}\`, or send ` +
      `\`new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput('${table}'))\`, or set ` +
      `TimeToLiveSpecification in your template (docs/stores.md). Pass checkTable: false to skip this check.`,
  );
}
