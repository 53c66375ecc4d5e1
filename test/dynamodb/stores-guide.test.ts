import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { DYNAMODB_TTL_ATTRIBUTE, dynamoDbDedupStore, dynamoDbTableInput } from 'webhook-cms-receiver/dynamodb';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { parse } from 'yaml';
import { codeBlocks } from '../../scripts/doc-blocks.mjs';
import { describeWithDynamoDb, freshPrefix, freshTable, localClient } from './dynamodb-clients.js';

// The stores guide's DynamoDB blocks that are not TypeScript the docs test can run (a SAM
// template, an IAM policy, a CDK stack without aws-cdk-lib here), each run here as written.
const guide = readFileSync(fileURLToPath(new URL('../../docs/stores.md', import.meta.url)), 'utf8');
const blocks = codeBlocks(guide) as { lang: string; code: string }[];
const samBlock = blocks.find((block) => block.lang === 'yaml' && block.code.includes('AWS::DynamoDB::Table'))!;
const policyBlock = blocks.find((block) => block.lang === 'json' && block.code.includes('dynamodb:PutItem'))!;
const cdkBlock = blocks.find((block) => block.code.includes('aws-cdk-lib/aws-dynamodb'))!;

/** CloudFormation's short forms, as plain objects. */
const cloudFormationTags = ['Ref', 'GetAtt', 'Sub'].map((name) => ({
  tag: `!${name}`,
  resolve: (value: string) => ({ [name]: value }),
}));

describe('the stores guide, DynamoDB section', () => {
  it('finds the SAM, IAM and CDK blocks', () => {
    expect([samBlock, policyBlock, cdkBlock].every(Boolean)).toBe(true);
  });
});

describeWithDynamoDb('the stores guide, DynamoDB section, on DynamoDB Local', () => {
  let client: DynamoDBClient;
  beforeAll(() => {
    client = localClient();
  });
  afterAll(() => client?.destroy());

  it("the SAM template's table is dynamoDbTableInput's, with TTL on expiresAt, and the store runs on it", async () => {
    const template = parse(samBlock.code, { customTags: cloudFormationTags }) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    type TableProperties = CreateTableCommandInput & {
      TimeToLiveSpecification: { AttributeName: string; Enabled: boolean };
    };
    const properties = template.Resources.DedupTable!.Properties as unknown as TableProperties;
    const { TimeToLiveSpecification, ...table } = properties;
    expect(table).toEqual(dynamoDbTableInput(table.TableName));
    expect(TimeToLiveSpecification).toEqual({ AttributeName: DYNAMODB_TTL_ATTRIBUTE, Enabled: true });
    // Created as CloudFormation would, under a name of this run.
    const TableName = `wcr-sam-${randomUUID()}`;
    await client.send(new CreateTableCommand({ ...table, TableName }));
    await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification }));
    const receiver = createReceiver({ token: 'guide-token', dedup: dynamoDbDedupStore(client, { table: TableName }) });
    const delivery = signDelivery({ token: 'guide-token', payload: articleSyncPayload() });
    expect((await receiver.handle(delivery, { 'article.sync': () => {} })).status).toBe(200);
    expect((await receiver.handle(delivery, { 'article.sync': () => {} })).body).toMatchObject({ duplicate: true });
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('the IAM policy lists every action the store calls, ordering and kept requests included, and no other', async () => {
    const used = new Set<string>();
    const counted = localClient();
    counted.middlewareStack.add(
      (next, context) => (args) => {
        const name = String(context.commandName).replace(/Command$/, '');
        const input = args.input as { TransactItems?: Record<string, unknown>[] };
        // A transaction needs the action of each of its items, not one of its own.
        if (name === 'TransactWriteItems') {
          for (const item of input.TransactItems ?? []) {
            for (const kind of Object.keys(item))
              used.add(kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`);
          }
        } else used.add(name);
        return next(args);
      },
      { step: 'initialize' },
    );
    const table = await freshTable(client);
    const store = dynamoDbDedupStore(counted, { table, keyPrefix: freshPrefix() });
    const receiver = createReceiver({ token: 'guide-token', ordering: true, dedup: store });
    const article = { id: randomUUID() };
    const send = (timestamp: number, fail = false) =>
      receiver.handle(signDelivery({ token: 'guide-token', payload: articleSyncPayload({ timestamp, article }) }), {
        'article.sync': () => {
          if (fail) throw new Error('the handler failed');
        },
      });
    await send(200);
    await send(300, true);
    await send(100);
    const plain = createReceiver({ token: 'guide-token', dedup: store, onError: () => {} });
    const delivery = signDelivery({ token: 'guide-token', payload: articleSyncPayload() });
    await plain.handle(delivery, { 'article.sync': () => Promise.reject(new Error('no')) });
    await plain.handle(delivery, { 'article.sync': () => {} });
    const kept = store.kept!;
    const limits = { maxCount: 2, maxBytes: 1 << 20, until: Date.now() + 60_000 };
    await kept.keep({ id: 'k', tokenSha256: 'ab'.repeat(32), headers: {}, body: '', receivedAt: Date.now() }, limits);
    await kept.list();
    await kept.take('k');
    await kept.clear();
    counted.destroy();
    const policy = JSON.parse(policyBlock.code) as { Statement: { Action: string[] }[] };
    const allowed = policy.Statement.flatMap((statement) => statement.Action).map((action) =>
      action.replace('dynamodb:', ''),
    );
    expect([...used].sort()).toEqual([...allowed].sort());
  });

  it('the CDK stack, run against a recording stand-in for aws-cdk-lib, makes the same table and grants the same actions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wcr-cdk-'));
    try {
      // aws-cdk-lib is not a dependency of this project: a stand-in, bundled into the block,
      // records on globalThis what the block asks of it.
      const standIn = `
        const calls = (globalThis.cdkCalls = []);
        export const RemovalPolicy = { RETAIN: 'RETAIN' };
        export const AttributeType = { STRING: 'S' };
        export const BillingMode = { PAY_PER_REQUEST: 'PAY_PER_REQUEST' };
        export class Table {
          constructor(scope, id, props) { calls.push(['Table', id, props]); this.tableName = 'from-cdk'; }
          grant(grantee, ...actions) { calls.push(['grant', ...actions]); }
        }`;
      writeFileSync(join(dir, 'cdk.mjs'), standIn);
      writeFileSync(join(dir, 'block.ts'), cdkBlock.code);
      await build({
        entryPoints: [join(dir, 'block.ts')],
        bundle: true,
        format: 'esm',
        platform: 'node',
        outfile: join(dir, 'block.mjs'),
        alias: { 'aws-cdk-lib': join(dir, 'cdk.mjs'), 'aws-cdk-lib/aws-dynamodb': join(dir, 'cdk.mjs') },
        external: ['aws-cdk-lib/aws-lambda'],
        logLevel: 'silent',
      });
      const block = await import(pathToFileURL(join(dir, 'block.mjs')).href);
      const environment: string[][] = [];
      block.dedupTable({}, { addEnvironment: (...pair: string[]) => environment.push(pair) });
      const calls = (globalThis as { cdkCalls?: unknown[] }).cdkCalls;
      const [table, ...grants] = calls as [string, ...unknown[]][];
      const props = table![2] as Record<string, { name: string; type: string } | string>;
      const input = dynamoDbTableInput('from-cdk');
      expect([props.partitionKey, props.sortKey]).toEqual(
        input.KeySchema!.map(({ AttributeName }) => ({ name: AttributeName, type: 'S' })),
      );
      expect(props.billingMode).toBe(input.BillingMode);
      expect(props.timeToLiveAttribute).toBe(DYNAMODB_TTL_ATTRIBUTE);
      const policy = JSON.parse(policyBlock.code) as { Statement: { Action: string[] }[] };
      expect(grants.flatMap(([, ...actions]) => actions).sort()).toEqual(
        policy.Statement.flatMap((statement) => statement.Action).sort(),
      );
      expect(environment).toEqual([['DEDUP_TABLE', 'from-cdk']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
