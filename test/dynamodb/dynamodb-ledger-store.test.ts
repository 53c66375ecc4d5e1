import { CreateTableCommand, QueryCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  dynamoDbLedger,
  dynamoDbLedgerStore,
  dynamoDbLedgerTableInput,
  dynamoDbTimeToLiveInput,
} from 'webhook-cms-receiver/dynamodb';
import { checkLedgerStore, ledgerEntry } from 'webhook-cms-receiver/testing';
import { expectLikeMemoryStore, expectRetriedAppendOnce } from '../stores/ledger-differential.js';
import { expectRecoveredAcrossInstances } from '../stores/ledger-recovery.js';
import { describeWithDynamoDb, freshPrefix, localClient } from './dynamodb-clients.js';
import { injectFaults } from './fault-middleware.js';

describeWithDynamoDb('dynamoDbLedgerStore answers as the memory store does', () => {
  const client = localClient();
  const faults = injectFaults(client);
  const table = `wcr-ledger-${Date.now()}`;
  beforeAll(async () => {
    await client.send(new CreateTableCommand(dynamoDbLedgerTableInput(table)));
    await client.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(table)));
  });
  afterAll(() => client.destroy());

  it('a batch written twice is on record once', async () => {
    await expectRetriedAppendOnce(
      dynamoDbLedgerStore(client, { table, keyPrefix: freshPrefix(), requestTimeoutMs: 20_000 }),
    );
  });

  it('recovers a refused delivery kept by another instance, once', { timeout: 60_000 }, async () => {
    const keyPrefix = freshPrefix();
    await expectRecoveredAcrossInstances(() =>
      dynamoDbLedger(client, { table, keyPrefix, requestTimeoutMs: 20_000, keepRefused: true }),
    );
  });

  it('sets each item to expire a retention from when it is written, not from a receivedAt long past', async () => {
    // A test's fixed clock (the kit's rows are from 2026-01-01), or a row written late: DynamoDB's
    // TTL runs on the real clock and would delete an item born expired at any moment.
    const keyPrefix = freshPrefix();
    const store = dynamoDbLedgerStore(client, { table, keyPrefix, requestTimeoutMs: 20_000 });
    const row = ledgerEntry({ receivedAt: Date.UTC(2026, 0, 1, 10) });
    await store.append([row]);
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk = :id',
        ExpressionAttributeValues: { ':pk': { S: `${keyPrefix}ledger#2026-01-01` }, ':id': { S: row.id } },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Number(Items[0]!.expiresAt!.N)).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
  });

  it('passes the ledger store kit', { timeout: 300_000 }, async () => {
    const report = await checkLedgerStore(
      () => dynamoDbLedgerStore(client, { table, keyPrefix: freshPrefix(), requestTimeoutMs: 20_000 }),
      { throwOnFailure: false },
    );
    expect(report.text).not.toMatch(/fail/i);
    expect(report.ok).toBe(true);
  });

  it('lists, pages, sums per hour and prunes alike; an append is counters, then batch writes', {
    timeout: 300_000,
  }, async () => {
    const store = dynamoDbLedgerStore(client, { table, keyPrefix: freshPrefix(), requestTimeoutMs: 20_000 });
    const perAppend: Record<string, number>[] = [];
    let before = new Map<string, number>();
    await expectLikeMemoryStore(store, () => {
      const calls: Record<string, number> = {};
      for (const [name, count] of faults.attempts) {
        const made = count - (before.get(name) ?? 0);
        if (made > 0) calls[name] = made;
      }
      perAppend.push(calls);
      before = new Map(faults.attempts);
    });
    console.log('DynamoDB calls per append of 100 rows:', JSON.stringify(perAppend));
    // 100 rows: one row item each plus their lookup items, 25 to a BatchWriteItem call.
    for (const calls of perAppend.slice(1)) expect(calls.BatchWriteItemCommand).toBeLessThanOrEqual(12);
  });
});
