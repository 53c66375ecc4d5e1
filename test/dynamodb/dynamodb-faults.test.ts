import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';
import {
  DUPLICATE,
  expectRetryRunsOnce,
  FAULT_TOKEN,
  HANDLED,
  syncDelivery,
  UNAVAILABLE,
  watchForCrashes,
} from '../stores/fault-kit.js';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient } from './dynamodb-clients.js';
import { injectFaults } from './fault-middleware.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver on a store whose client the test breaks, with its handler runs and onError reports. */
function setUp(client: DynamoDBClient, table: string, options: { leaseMs?: number; ordering?: boolean } = {}) {
  const errors: Error[] = [];
  const receiver = createReceiver({
    token: FAULT_TOKEN,
    ordering: options.ordering ?? false,
    dedup: dynamoDbDedupStore(client, { table, keyPrefix: freshPrefix(), leaseMs: options.leaseMs }),
    onError: (error) => void errors.push(error as Error),
  });
  let runs = 0;
  const handlers: WebhookHandlers = { 'article.sync': () => void runs++ };
  return { receiver, handlers, errors, runs: () => runs };
}

describeWithDynamoDb('dynamoDbDedupStore faults injected in the SDK (throttling, lost answers)', () => {
  watchForCrashes();
  let client: DynamoDBClient;
  let faults: ReturnType<typeof injectFaults>;
  let table: string;
  beforeAll(async () => {
    // Two attempts per call: a throttled call's backoff (500 ms and more) fits the tests' leases.
    client = localClient(undefined, { maxAttempts: 2 });
    faults = injectFaults(client);
    table = await freshTable(client);
  });
  afterAll(() => client?.destroy());
  const calm = () => {
    faults.plan.throttle = undefined;
    faults.plan.loseAnswer = undefined;
  };

  for (const ordering of [false, true]) {
    const mode = ordering ? ' (ordering)' : '';
    const claimCommand = ordering ? 'TransactWriteItemsCommand' : 'PutItemCommand';
    const completeCommand = ordering ? 'TransactWriteItemsCommand' : 'UpdateItemCommand';

    it(`a claim throttled past the SDK's retries → 503, the handler not run; the retry runs once${mode}`, async () => {
      const { receiver, handlers, errors, runs } = setUp(client, table, { ordering });
      const delivery = syncDelivery(randomUUID());
      await receiver.handle(syncDelivery(randomUUID())(), handlers); // the table check, done
      const before = runs();
      faults.plan.throttle = (name) => name === claimCommand;
      try {
        expect(await receiver.handle(delivery(), handlers)).toEqual(UNAVAILABLE);
      } finally {
        calm();
      }
      expect(runs()).toBe(before);
      expect(errors.map((error) => [(error as { code?: string }).code, String(error.cause)])).toEqual([
        ['dedup_unavailable', expect.stringMatching(/ProvisionedThroughputExceeded|ThrottlingException/)],
      ]);
      await expectRetryRunsOnce(receiver, delivery, handlers, runs);
    });

    it(`recording throttled past the SDK's retries is tried again within the lease: the delivery runs once${mode}`, async () => {
      const { receiver, errors } = setUp(client, table, { leaseMs: 3_000, ordering });
      let throttled = 0;
      let ran = 0;
      const handlers: WebhookHandlers = {
        // Three refusals from the moment the handler ran: more than the SDK's two attempts of one call.
        'article.sync': () => {
          ran++;
          faults.plan.throttle = (name) => name === completeCommand && throttled++ < 3;
        },
      };
      const delivery = syncDelivery(randomUUID());
      try {
        expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
      } finally {
        calm();
      }
      expect(throttled).toBe(4);
      // Past the lease: an unrecorded answer would have let this retry run the handler again.
      await sleep(3_500);
      let again = 0;
      expect(await receiver.handle(delivery(), { 'article.sync': () => void again++ })).toEqual(DUPLICATE);
      expect([ran, again]).toEqual([1, 0]);
      expect(errors).toEqual([]);
    });
  }

  it("a claim whose answer was lost is claimed when the SDK sends it again: 200 at once, never a 409 for one's own claim", async () => {
    const { receiver, handlers, errors, runs } = setUp(client, table);
    const delivery = syncDelivery(randomUUID());
    await receiver.handle(syncDelivery(randomUUID())(), handlers);
    let lost = 0;
    faults.plan.loseAnswer = (name) => name === 'PutItemCommand' && lost++ === 0;
    try {
      expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
    } finally {
      calm();
    }
    expect(lost).toBe(2);
    expect(runs()).toBe(2);
    expect(await receiver.handle(delivery(), handlers)).toEqual(DUPLICATE);
    expect(errors).toEqual([]);
  });

  it('a recorded answer whose reply was lost is not reported as taken over when the SDK sends it again', async () => {
    const { receiver, handlers, errors } = setUp(client, table);
    const delivery = syncDelivery(randomUUID());
    let lost = 0;
    faults.plan.loseAnswer = (name) => name === 'UpdateItemCommand' && lost++ === 0;
    try {
      expect(await receiver.handle(delivery(), handlers)).toEqual(HANDLED);
    } finally {
      calm();
    }
    expect(lost).toBe(2);
    expect(await receiver.handle(delivery(), handlers)).toEqual(DUPLICATE);
    expect(errors).toEqual([]);
  });
});
