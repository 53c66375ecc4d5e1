import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';
import { oddIdContract } from '../stores/odd-ids.js';
import { storeContract } from '../stores/store-contract.js';
import { tenantIsolationContract } from '../stores/tenant-isolation.js';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient, PATIENT } from './dynamodb-clients.js';

describeWithDynamoDb('dynamoDbDedupStore on DynamoDB Local', () => {
  let client: DynamoDBClient;
  let table: string;
  beforeAll(async () => {
    client = localClient();
    table = await freshTable(client);
  });
  afterAll(() => client?.destroy());

  storeContract('dynamoDbDedupStore', ({ leaseMs, retentionMs }) =>
    dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix(), leaseMs, retentionMs }),
  );
  oddIdContract('dynamoDbDedupStore', () =>
    dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix() }),
  );
  tenantIsolationContract('dynamoDbDedupStore', () =>
    dynamoDbDedupStore(client, { ...PATIENT, table, keyPrefix: freshPrefix() }),
  );
});
