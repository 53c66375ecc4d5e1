import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';
import {
  expectRetryRunsOnce,
  FAULT_TOKEN,
  HANDLED,
  syncDelivery,
  UNAVAILABLE,
  watchForCrashes,
} from '../stores/fault-kit.js';
import { freePort } from '../setup/services.js';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient } from './dynamodb-clients.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Its own DynamoDB Local, on disk (`-dbPath`), so a restart finds the table and the items
 * again: the tests stop, kill and restart it, which would disturb every other test file on
 * the shared one.
 */
describeWithDynamoDb('dynamoDbDedupStore while DynamoDB Local is stopped, killed and restarted', () => {
  watchForCrashes();
  let local: DynamoDbLocal;
  let port: number;
  let dir: string;
  let client: DynamoDBClient;
  let table: string;
  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'wcr-dynamodb-restart-'));
    local = await startDynamoDbLocal(port, { dbPath: dir });
    client = localClient(local.endpoint, { maxAttempts: 2 });
    table = await freshTable(client);
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await local?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const restart = async () => {
    await local.stop();
    local = await startDynamoDbLocal(port, { dbPath: dir });
    // A cold JVM answers its first calls slowly: warm it before the store's time limit applies.
    await client.send(new DescribeTableCommand({ TableName: table }));
  };

  const setUp = (ordering = false) => {
    const errors: Error[] = [];
    const receiver = createReceiver({
      token: FAULT_TOKEN,
      ordering,
      dedup: dynamoDbDedupStore(client, { table, keyPrefix: freshPrefix() }),
      onError: (error) => void errors.push(error as Error),
    });
    let runs = 0;
    const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
    return { receiver, handlers, errors, runs: () => runs };
  };

  for (const ordering of [false, true]) {
    const mode = ordering ? ' (ordering)' : '';
    it(`a stopped DynamoDB (no answer at all) → 503 within requestTimeoutMs; the retry takes its own claim back and runs once${mode}`, async () => {
      const { receiver, handlers, errors, runs } = setUp(ordering);
      expect(await receiver.handle(syncDelivery(randomUUID())(), handlers)).toEqual(HANDLED);
      const delivery = syncDelivery(randomUUID());
      local.child.kill('SIGSTOP');
      try {
        expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
      } finally {
        local.child.kill('SIGCONT');
      }
      expect(runs()).toBe(1);
      expect(String(errors[0]?.cause)).toMatch(/requestTimeoutMs \(3000 ms\)/);
      await expectRetryRunsOnce(receiver, delivery, handlers, runs);
    }, 30_000);

    it(`DynamoDB Local killed mid-claim and restarted → 503, the host lives; after the restart the retry runs once${mode}`, async () => {
      const { receiver, handlers, runs } = setUp(ordering);
      expect(await receiver.handle(syncDelivery(randomUUID())(), handlers)).toEqual(HANDLED);
      const delivery = syncDelivery(randomUUID());
      // Stopped, it holds the claim unanswered; killed, it drops the connection under it.
      local.child.kill('SIGSTOP');
      const answer = receiver.handle(delivery(), handlers);
      await sleep(200);
      await local.stop();
      expect(await answer).toEqual(UNAVAILABLE);
      expect(runs()).toBe(1);
      await restart();
      await expectRetryRunsOnce(receiver, delivery, handlers, runs);
    }, 60_000);
  }

  it('a store first used while DynamoDB Local is down checks the table again once it is back', async () => {
    const { receiver, handlers, runs } = setUp();
    const delivery = syncDelivery(randomUUID());
    await local.stop();
    try {
      expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
    } finally {
      await restart();
    }
    expect(runs()).toBe(0);
    await expectRetryRunsOnce(receiver, delivery, handlers, runs);
  }, 60_000);
});
