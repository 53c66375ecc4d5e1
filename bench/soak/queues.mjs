// The queue engine of `--queue`: the receiving side's `DeliveryQueue` and the workers' job
// source, on the Redis, Postgres or fauxqs (SQS and S3) the run started. Queue and schema names are fixed: one run,
// one throwaway server.

const QUEUE = 'soak';

function bullConnection(redisUrl) {
  const url = new URL(redisUrl);
  // null: BullMQ's blocking commands must wait out a Redis restart instead of failing.
  return { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
}

async function pgBoss(databaseUrl) {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'soak_boss', maintenanceIntervalSeconds: 5 });
  boss.on('error', () => {}); // a Postgres restart is expected; the engine reconnects
  await boss.start();
  return boss;
}

/** SQS and S3 clients on fauxqs, and the queue's URL (created if missing: every process may be first). */
async function sqs(config) {
  const { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } = await import('@aws-sdk/client-sqs');
  const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
  const aws = {
    endpoint: config.sqsUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'soak', secretAccessKey: 'soak' },
  };
  const client = new SQSClient(aws);
  const s3 = new S3Client({ ...aws, forcePathStyle: true });
  // Bodies past SQS's 256 KiB go to S3 (the soak sends up to 1 MiB).
  await s3.send(new CreateBucketCommand({ Bucket: QUEUE })).catch(() => {});
  // A dead-letter queue past the workers' 30 attempts (sqsSource asks for one): a message there
  // is a delivery the judge finds lost.
  const dead = await client.send(new CreateQueueCommand({ QueueName: `${QUEUE}-dead` }));
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const redrive = { deadLetterTargetArn: Attributes.QueueArn, maxReceiveCount: 40 };
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({
      QueueName: QUEUE,
      Attributes: { VisibilityTimeout: '10', RedrivePolicy: JSON.stringify(redrive) },
    }),
  );
  return { client, queueUrl: QueueUrl, bodies: { client: s3, bucket: QUEUE } };
}

/** `{ queue, close() }` for a receiving process. */
export async function openQueue(config) {
  if (config.queue === 'sqs') {
    const { sqsQueue } = await import('webhook-cms-receiver/sqs');
    const { client, queueUrl, bodies } = await sqs(config);
    return { queue: sqsQueue({ client, queueUrl, bodies }), close: async () => client.destroy() };
  }
  if (config.queue === 'bullmq') {
    const { Queue } = await import('bullmq');
    const { bullmqQueue } = await import('webhook-cms-receiver/bullmq');
    const queue = new Queue(QUEUE, { connection: bullConnection(config.redisUrl) });
    queue.on('error', () => {});
    return { queue: bullmqQueue(queue), close: () => queue.close().catch(() => {}) };
  }
  const { pgBossQueue } = await import('webhook-cms-receiver/pg-boss');
  const boss = await pgBoss(config.databaseUrl);
  return {
    queue: pgBossQueue(boss, QUEUE),
    close: () => boss.stop({ graceful: false, wait: true }).catch(() => {}),
  };
}

/** `{ source, close() }` for a worker process. */
export async function openSource(config) {
  if (config.queue === 'sqs') {
    const { sqsSource } = await import('webhook-cms-receiver/sqs');
    const { client, queueUrl, bodies } = await sqs(config);
    // Short polls and a short visibility: a SIGKILLed worker's messages come back within 10 s.
    const source = sqsSource({ client, queueUrl, bodies, waitTimeSeconds: 1, visibilityTimeoutSeconds: 10 });
    return { source, close: async () => client.destroy() };
  }
  if (config.queue === 'bullmq') {
    const { bullmqSource } = await import('webhook-cms-receiver/bullmq');
    const source = bullmqSource({
      queueName: QUEUE,
      connection: bullConnection(config.redisUrl),
      lockDuration: 5_000,
      stalledInterval: 2_500,
    });
    return { source, close: async () => {} };
  }
  const { pgBossSource } = await import('webhook-cms-receiver/pg-boss');
  const boss = await pgBoss(config.databaseUrl);
  return {
    source: pgBossSource(boss, QUEUE, { pollingIntervalSeconds: 0.5, expireInSeconds: 10 }),
    close: () => boss.stop({ graceful: false, wait: true }).catch(() => {}),
  };
}
