import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type Ledger, type LedgerRow } from 'webhook-cms-receiver';
import { dynamoDbLedger } from 'webhook-cms-receiver/dynamodb';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freePort } from '../setup/services.js';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient } from './dynamodb-clients.js';
import { injectFaults } from './fault-middleware.js';

const token = 'dynamodb-ledger-token';

/** A receiver recording to `ledger`, its handler counting, its `warn` lines kept. */
function receiverOn(ledger: Ledger) {
  const warnings: string[] = [];
  let handled = 0;
  const receiver = createReceiver({
    token,
    ledger,
    logger: { warn: (...args: unknown[]) => warnings.push(String(args[0])), error: () => {} },
  });
  const send = async (delivery = signDelivery({ token, payload: articleSyncPayload() })) =>
    (await receiver.handle(delivery, { 'article.sync': () => void handled++ })).status;
  return { warnings, send, handled: () => handled };
}

describeWithDynamoDb('dynamoDbLedger when DynamoDB is unreachable or throttles', () => {
  let client: DynamoDBClient;
  let faults: ReturnType<typeof injectFaults>;
  let table: string;
  beforeAll(async () => {
    client = localClient(undefined, { maxAttempts: 2 });
    faults = injectFaults(client);
    table = await freshTable(client);
  });
  afterAll(() => client?.destroy());

  it('answers 200 with nothing listening at the endpoint, and reports the failed writes in a warn line', async () => {
    const dead = localClient(`http://127.0.0.1:${await freePort()}`, { maxAttempts: 1 });
    const ledger = dynamoDbLedger(dead, { table: 'webhook-ledger', requestTimeoutMs: 2_000 });
    const { warnings, send, handled } = receiverOn(ledger);
    expect([await send(), await send(), await send()]).toEqual([200, 200, 200]);
    expect(handled()).toBe(3);
    await ledger.flush();
    expect(warnings.some((line) => /ledger/.test(line) && /failed/.test(line))).toBe(true);
    await expect(ledger.list()).rejects.toThrow();
    dead.destroy();
  });

  it('answers 200 while every write is throttled past the SDK’s retries, then writes each row once', async () => {
    const ledger = dynamoDbLedger(client, { table, keyPrefix: freshPrefix(), requestTimeoutMs: 20_000 });
    const { warnings, send, handled } = receiverOn(ledger);
    expect(await send()).toBe(200); // the table check, done
    await ledger.flush();
    // The copy counters land; the rows' BatchWriteItem is throttled: the batch is written again later.
    faults.plan.throttle = (name) => name === 'BatchWriteItemCommand';
    const twice = signDelivery({ token, payload: articleSyncPayload() });
    try {
      expect([await send(twice), await send(twice), await send()]).toEqual([200, 200, 200]);
      await ledger.flush();
    } finally {
      faults.plan.throttle = undefined;
    }
    expect(warnings.some((line) => /failed/.test(line) && /throughput exceeded|rate exceeded/.test(line))).toBe(true);
    expect(handled()).toBe(3);
    let rows: LedgerRow[] = [];
    for (let attempt = 0; attempt < 40 && rows.length < 4; attempt++) {
      await ledger.flush();
      rows = (await ledger.list()).rows;
      if (rows.length < 4) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rows.map((row) => [row.code, row.copy])).toEqual([
      ['ok', 1],
      ['duplicate', 2],
      ['ok', 1],
      ['ok', 1],
    ]);
  }, 60_000);

  it('sends again the items DynamoDB leaves unprocessed, until every row is written', async () => {
    const partial = localClient(undefined, { maxAttempts: 2 });
    let cut = 0;
    // DynamoDB answers a BatchWriteItem with the items it did not write: the first five calls write half.
    partial.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { RequestItems?: Record<string, unknown[]> };
        if (context.commandName !== 'BatchWriteItemCommand' || cut >= 5 || !input.RequestItems?.[table])
          return next(args);
        cut++;
        const items = input.RequestItems[table]!;
        const half = Math.ceil(items.length / 2);
        const result = await next({ ...args, input: { ...input, RequestItems: { [table]: items.slice(0, half) } } });
        (result.output as { UnprocessedItems?: unknown }).UnprocessedItems = { [table]: items.slice(half) };
        return result;
      },
      { step: 'initialize', name: 'leaveUnprocessed' },
    );
    const ledger = dynamoDbLedger(partial, { table, keyPrefix: freshPrefix(), requestTimeoutMs: 20_000 });
    const { warnings, send } = receiverOn(ledger);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push(await send());
    await ledger.flush();
    expect(statuses).toEqual(Array(12).fill(200));
    expect(cut).toBe(5);
    expect(warnings).toEqual([]);
    const { rows } = await ledger.list();
    expect(rows).toHaveLength(12);
    for (const row of rows) expect((await ledger.list({ article: row.articleId! })).rows).toEqual([row]);
    partial.destroy();
  }, 60_000);

  it('names the ledger and the fix when its table does not exist', async () => {
    const ledger = dynamoDbLedger(client, { table: `missing-${freshPrefix().slice(1, 9)}`, requestTimeoutMs: 20_000 });
    const { warnings, send } = receiverOn(ledger);
    expect(await send()).toBe(200);
    await ledger.flush();
    expect(warnings.join('\n')).toMatch(/dynamoDbLedger could not .* does not exist .*CreateTableCommand/);
    await expect(ledger.list()).rejects.toThrow(/^dynamoDbLedger could not .* does not exist/);
  });
});
