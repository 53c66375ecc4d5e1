import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { describe } from 'vitest';
import { dynamoDbTableInput, dynamoDbTimeToLiveInput } from 'webhook-cms-receiver/dynamodb';
import { JAVA_MISSING } from './dynamodb-local.js';

/** The DynamoDB Local the tests use: test/setup/services.ts starts one when Java is here. */
export const dynamoDbEndpoint = process.env.DYNAMODB_ENDPOINT;

const HOW_TO_RUN = `skipped: ${JAVA_MISSING}`;
if (!dynamoDbEndpoint) console.warn(`DynamoDB tests ${HOW_TO_RUN}`);

/** A describe block that needs DynamoDB Local: skipped, saying how to run it, when there is none. */
export const describeWithDynamoDb = (name: string, body: () => void) =>
  dynamoDbEndpoint ? describe(name, body) : describe.skip(`${name} (${HOW_TO_RUN})`, body);

/** A client of DynamoDB Local, as a user would make one for it: any credentials and region work. */
export function localClient(endpoint = dynamoDbEndpoint!, config: DynamoDBClientConfig = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...config,
  });
}

/** Creates a table as the docs say (dynamoDbTableInput, then TTL on) and returns its name. */
export async function freshTable(client: DynamoDBClient, options: { ttl?: boolean } = {}): Promise<string> {
  const table = `wcr-test-${randomUUID()}`;
  await client.send(new CreateTableCommand(dynamoDbTableInput(table)));
  if (options.ttl !== false) await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(table)));
  return table;
}

/** A key prefix no other test shares, so tests can share one table. */
export const freshPrefix = () => `t${randomUUID()}:`;

/**
 * Store options for tests that are not about time limits: DynamoDB Local on a loaded CI
 * machine can take seconds to answer, and a 3 s limit would fail the call (a 503) mid-test.
 * dynamodb-restart.test.ts checks the limit itself.
 */
export const PATIENT = { requestTimeoutMs: 20_000 } as const;
