// The DynamoDB store against the anchor, AWS Lambda Powertools' idempotency utility with its
// DynamoDBPersistenceLayer, on the same DynamoDB Local (issue 47 item 5). Both guard the same
// handler behind the same receiver (ours as `dedup`, Powertools' `makeIdempotent` around the
// handler of a receiver with `dedup: false`), so the only difference is the dedup work:
// - round trips: every HTTP attempt the SDK makes, counted by a middleware at the
//   `deserialize` step (inside the SDK's retry loop), per fresh delivery and per duplicate;
// - consumed capacity: a middleware adds ReturnConsumedCapacity: 'TOTAL' to every call and
//   sums what DynamoDB reports. A write refused by its condition is charged too (a write of
//   the item's size) but its error carries no figure: those calls are counted apart;
// - correctness: 40 concurrent copies of one delivery, handler runs counted;
// - wall time per delivery on loopback, for reference only (DynamoDB Local is not DynamoDB).
// Ours must need no more round trips than Powertools on either path.
// `node bench/suites/dynamodb.mjs [--quick]` runs it alone (after `npx tsup`).

import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startDynamoDbLocal } from './dynamodb-local.mjs';

const TOKEN = 'bench-dynamodb-token-0123456789';

/** A client of `endpoint` whose every attempt and reported capacity land in `tally`. */
function countedClient(DynamoDBClient, endpoint, tally) {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      if (args.input && typeof args.input === 'object' && !('TimeToLiveSpecification' in args.input)) {
        args.input.ReturnConsumedCapacity = 'TOTAL';
      }
      try {
        const output = await next(args);
        const consumed = output.output?.ConsumedCapacity;
        for (const one of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
          tally.capacity += one.CapacityUnits ?? 0;
        }
        return output;
      } catch (error) {
        if (/ConditionalCheckFailed|TransactionCanceled/.test(error?.name)) tally.refused++;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCapacity' },
  );
  client.middlewareStack.add(
    (next) => (args) => {
      tally.sends++;
      return next(args);
    },
    { step: 'deserialize', name: 'benchRoundTrips' },
  );
  return client;
}

const newTally = () => ({ sends: 0, capacity: 0, refused: 0 });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

export async function dynamoDbSuite({ deliveries = 200, copies = 40 } = {}) {
  const local = await startDynamoDbLocal();
  if (local.missing) return { missing: local.missing };
  try {
    const sdk = await import('@aws-sdk/client-dynamodb');
    const { createReceiver } = await import('webhook-cms-receiver');
    const { dynamoDbDedupStore, dynamoDbTableInput, dynamoDbTimeToLiveInput } = await import(
      'webhook-cms-receiver/dynamodb'
    );
    const { signDelivery, articleSyncPayload } = await import('webhook-cms-receiver/testing');
    const { makeIdempotent, IdempotencyConfig } = await import('@aws-lambda-powertools/idempotency');
    const { DynamoDBPersistenceLayer } = await import('@aws-lambda-powertools/idempotency/dynamodb');

    const admin = new sdk.DynamoDBClient({
      endpoint: local.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    const oursTable = `bench-ours-${randomUUID()}`;
    const theirsTable = `bench-powertools-${randomUUID()}`;
    await admin.send(new sdk.CreateTableCommand(dynamoDbTableInput(oursTable)));
    await admin.send(new sdk.UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(oursTable)));
    // Powertools' documented table: partition key `id`, TTL on `expiration`.
    await admin.send(
      new sdk.CreateTableCommand({
        TableName: theirsTable,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await admin.send(
      new sdk.UpdateTimeToLiveCommand({
        TableName: theirsTable,
        TimeToLiveSpecification: { Enabled: true, AttributeName: 'expiration' },
      }),
    );
    admin.destroy();

    const contenders = [
      {
        name: 'dynamoDbDedupStore (this package)',
        make(tally, runs) {
          const client = countedClient(sdk.DynamoDBClient, local.endpoint, tally);
          const receiver = createReceiver({
            token: TOKEN,
            dedup: dynamoDbDedupStore(client, { table: oursTable }),
            onError: () => {},
          });
          const handlers = {
            'article.sync': async () => {
              runs.count++;
              await new Promise((resolve) => setTimeout(resolve, 20));
              return { publishedUrl: 'https://blog.example.com/bench' };
            },
          };
          return { handle: (signed) => receiver.handle(signed, handlers), close: () => client.destroy() };
        },
      },
      {
        name: 'Powertools idempotency, DynamoDBPersistenceLayer',
        anchor: true,
        make(tally, runs) {
          const client = countedClient(sdk.DynamoDBClient, local.endpoint, tally);
          const persistenceStore = new DynamoDBPersistenceLayer({ tableName: theirsTable, awsSdkV3Client: client });
          const config = new IdempotencyConfig({ eventKeyJmesPath: 'deliveryId', expiresAfterSeconds: 72 * 3600 });
          // As in a Lambda function: its in-progress records expire with the invocation's time left.
          config.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 });
          const guarded = makeIdempotent(
            async () => {
              runs.count++;
              await new Promise((resolve) => setTimeout(resolve, 20));
              return { publishedUrl: 'https://blog.example.com/bench' };
            },
            { persistenceStore, config },
          );
          // Copies in flight throw IdempotencyAlreadyInProgressError: a 500 the service retries.
          const receiver = createReceiver({ token: TOKEN, dedup: false, onError: () => {} });
          const handlers = { 'article.sync': (event) => guarded({ deliveryId: event.deliveryId }) };
          return { handle: (signed) => receiver.handle(signed, handlers), close: () => client.destroy() };
        },
      },
      {
        // For reference: Powertools has no ordering. Each step is then one TransactWriteItems.
        name: 'dynamoDbDedupStore, ordering: true',
        make(tally, runs) {
          const client = countedClient(sdk.DynamoDBClient, local.endpoint, tally);
          const receiver = createReceiver({
            token: TOKEN,
            ordering: true,
            dedup: dynamoDbDedupStore(client, { table: oursTable }),
            onError: () => {},
          });
          const handlers = {
            'article.sync': async () => {
              runs.count++;
              await new Promise((resolve) => setTimeout(resolve, 20));
              return { publishedUrl: 'https://blog.example.com/bench' };
            },
          };
          return { handle: (signed) => receiver.handle(signed, handlers), close: () => client.destroy() };
        },
      },
    ];

    const payload = articleSyncPayload();
    const guards = contenders.map((contender) => {
      const tally = newTally();
      const runs = { count: 0 };
      return { contender, tally, runs, guard: contender.make(tally, runs) };
    });
    // Warm-up of both before either is measured: each store checks its table on first use, and
    // DynamoDB Local's JVM compiles its hot paths in the first few hundred calls.
    for (let i = 0; i < 200; i++) {
      for (const { guard } of guards)
        await guard.handle(signDelivery({ token: TOKEN, payload, deliveryId: randomUUID() }));
    }
    const measure = async ({ contender, tally, guard }, ids, label) => {
      Object.assign(tally, newTally());
      const times = [];
      for (const deliveryId of ids) {
        const signed = signDelivery({ token: TOKEN, payload, deliveryId });
        const started = performance.now();
        const answer = await guard.handle(signed);
        times.push(performance.now() - started);
        if (answer.status !== 200) throw new Error(`${contender.name}, ${label}: answered ${answer.status}`);
      }
      return {
        sends: tally.sends / ids.length,
        capacity: tally.capacity / ids.length,
        refused: tally.refused / ids.length,
        ms: median(times),
      };
    };
    const rows = [];
    for (const entry of guards) {
      const ids = Array.from({ length: deliveries }, () => randomUUID());
      const fresh = await measure(entry, ids, 'fresh');
      const duplicate = await measure(entry, ids, 'duplicate');
      // 40 concurrent copies of one new delivery.
      entry.runs.count = 0;
      const deliveryId = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: copies }, () => entry.guard.handle(signDelivery({ token: TOKEN, payload, deliveryId }))),
      );
      const statuses = {};
      for (const { status, body } of answers) {
        const kind = status === 200 ? (body.duplicate ? '200 duplicate' : '200') : String(status);
        statuses[kind] = (statuses[kind] ?? 0) + 1;
      }
      rows.push({ name: entry.contender.name, fresh, duplicate, concurrent: { runs: entry.runs.count, statuses } });
    }
    for (const { guard } of guards) guard.close();
    return { rows, deliveries, copies };
  } finally {
    local.stop();
  }
}

const f = (value, digits = 2) => value.toFixed(digits).replace(/\.?0+$/, '') || '0';

export function dynamoDbReport(result) {
  if (result.missing) return `Not measured: ${result.missing}.`;
  const lines = [
    '| store | round trips, fresh | round trips, duplicate | capacity units reported, fresh | capacity units reported, duplicate | refused conditional writes, fresh / duplicate | median ms, fresh / duplicate (DynamoDB Local) | 40 concurrent copies: handler runs, answers |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { name, fresh, duplicate, concurrent } of result.rows) {
    const answers = Object.entries(concurrent.statuses)
      .map(([kind, count]) => `${count}× ${kind}`)
      .join(', ');
    lines.push(
      `| ${name} | ${f(fresh.sends)} | ${f(duplicate.sends)} | ${f(fresh.capacity)} | ${f(duplicate.capacity)} | ` +
        `${f(fresh.refused)} / ${f(duplicate.refused)} | ${f(fresh.ms, 1)} / ${f(duplicate.ms, 1)} | ${concurrent.runs}, ${answers} |`,
    );
  }
  return lines.join('\n');
}

/** The target: no more round trips than Powertools on either path, and one run for 40 copies. */
export function dynamoDbVerdicts(result) {
  if (result.missing) return [];
  const [ours, theirs] = result.rows;
  const ordered = result.rows[2];
  return [
    {
      target: 'DynamoDB store: round trips per fresh delivery ≤ Powertools',
      measured: `${f(ours.fresh.sends)} vs ${f(theirs.fresh.sends)}`,
      pass: ours.fresh.sends <= theirs.fresh.sends,
    },
    {
      target: 'DynamoDB store: round trips per duplicate ≤ Powertools',
      measured: `${f(ours.duplicate.sends)} vs ${f(theirs.duplicate.sends)}`,
      pass: ours.duplicate.sends <= theirs.duplicate.sends,
    },
    {
      target: `DynamoDB store: one handler run for ${result.copies} concurrent copies`,
      measured: `${ours.concurrent.runs} (ordering: ${ordered?.concurrent.runs ?? 'n/a'})`,
      pass: ours.concurrent.runs === 1 && (ordered === undefined || ordered.concurrent.runs === 1),
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await dynamoDbSuite(quick ? { deliveries: 20 } : {});
  console.log(dynamoDbReport(result));
  for (const verdict of dynamoDbVerdicts(result)) {
    console.log(`${verdict.pass ? 'PASS' : 'FAIL'} ${verdict.target}: ${verdict.measured}`);
  }
}
