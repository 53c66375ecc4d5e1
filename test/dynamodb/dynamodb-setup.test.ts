import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  DYNAMODB_TTL_ATTRIBUTE,
  dynamoDbDedupStore,
  dynamoDbTableInput,
  dynamoDbTimeToLiveInput,
} from 'webhook-cms-receiver/dynamodb';
import { FAULT_TOKEN, HANDLED, syncDelivery, UNAVAILABLE } from '../stores/fault-kit.js';
import { describeWithDynamoDb, freshTable, localClient } from './dynamodb-clients.js';

describeWithDynamoDb('dynamoDbDedupStore: a table that is missing or has no TTL is reported at first use', () => {
  let client: DynamoDBClient;
  beforeAll(() => {
    client = localClient();
  });
  afterAll(() => client?.destroy());

  const receiverOn = (table: string) => {
    const errors: Error[] = [];
    const receiver = createReceiver({
      token: FAULT_TOKEN,
      dedup: dynamoDbDedupStore(client, { table }),
      onError: (error) => void errors.push(error as Error),
    });
    let runs = 0;
    const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
    return { receiver, handlers, errors, runs: () => runs };
  };

  it('a missing table: 503 and an error naming the table and how to create it; works once it exists', async () => {
    const table = `wcr-missing-${randomUUID()}`;
    const { receiver, handlers, errors, runs } = receiverOn(table);
    const delivery = syncDelivery(randomUUID());
    expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
    expect(runs()).toBe(0);
    const message = String(errors[0]?.cause);
    expect(message).toContain(`The table ${table} does not exist`);
    expect(message).toContain(`new CreateTableCommand(dynamoDbTableInput('${table}'))`);
    expect(message).toContain(`dynamoDbTimeToLiveInput('${table}')`);
    await client.send(new CreateTableCommand(dynamoDbTableInput(table)));
    await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(table)));
    expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
    expect(runs()).toBe(1);
  });

  it('a table without Time to Live: 503 and the command that turns it on; checked again after the fix', async () => {
    const table = await freshTable(client, { ttl: false });
    const { receiver, handlers, errors, runs } = receiverOn(table);
    const delivery = syncDelivery(randomUUID());
    expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
    expect(runs()).toBe(0);
    expect(String(errors[0]?.cause)).toContain(
      `aws dynamodb update-time-to-live --table-name ${table} --time-to-live-specification ` +
        `Enabled=true,AttributeName=${DYNAMODB_TTL_ATTRIBUTE}`,
    );
    await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(table)));
    expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
    expect(runs()).toBe(1);
  });

  it('TTL on another attribute is refused too, naming both; checkTable: false skips the check', async () => {
    const table = await freshTable(client, { ttl: false });
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' },
      }),
    );
    const { receiver, handlers, errors } = receiverOn(table);
    expect(await receiver.handle(syncDelivery(randomUUID())(), handlers)).toEqual(UNAVAILABLE);
    expect(String(errors[0]?.cause)).toMatch(/Time to Live is on for attribute "ttl".*"expiresAt"/);
    const unchecked = createReceiver({
      token: FAULT_TOKEN,
      dedup: dynamoDbDedupStore(client, { table, checkTable: false }),
    });
    expect(await unchecked.handle(syncDelivery(randomUUID())(), handlers)).toEqual(HANDLED);
  });

  it('checks the table once per store: later deliveries cost no DescribeTimeToLive', async () => {
    const table = await freshTable(client);
    const counted = localClient();
    const names: string[] = [];
    counted.middlewareStack.add(
      (next, context) => (args) => {
        names.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const receiver = createReceiver({ token: FAULT_TOKEN, dedup: dynamoDbDedupStore(counted, { table }) });
    for (let i = 0; i < 3; i++) await receiver.handle(syncDelivery(randomUUID())(), { 'article.sync': () => {} });
    expect(names.filter((name) => name === 'DescribeTimeToLiveCommand')).toHaveLength(1);
    expect(names.filter((name) => name !== 'DescribeTimeToLiveCommand')).toEqual([
      'PutItemCommand',
      'UpdateItemCommand',
      'PutItemCommand',
      'UpdateItemCommand',
      'PutItemCommand',
      'UpdateItemCommand',
    ]);
    counted.destroy();
  });

  it('refuses a table name DynamoDB would refuse, and a missing client, when the store is made', () => {
    expect(() => dynamoDbDedupStore(client, { table: 'ab' })).toThrow(/table must be a DynamoDB table name/);
    expect(() => dynamoDbDedupStore(undefined as never, { table: 'webhook-deliveries' })).toThrow(
      /client must be a DynamoDBClient/,
    );
    expect(() => dynamoDbDedupStore(client, { table: 'webhook-deliveries', leaseMs: 0 })).toThrow(/leaseMs/);
  });
});
