// One SQS worker process for the SQS fault matrix, on the built package imported by name as a
// user would: sqsSource on fauxqs, a Redis dedup store shared by every worker. What a handler
// does depends on the article's slug:
//   `hang-once` hangs on its first run (printing `hanging <delivery id>`) until the test kills the process;
//   `slow`      takes SLOW_MS (default 1 s) before its effect;
//   `poison`    always throws;
//   `ordered-*` records the article and its run order (FIFO rows).
// Every run is counted in Redis and announced as `running <delivery id> <run> <attempt>`; a dead
// letter is announced as `dead <delivery id> <reason>`; log lines as `log <level> <text>`.
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Redis } from 'ioredis';
import { startWorker } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { sqsSource } from 'webhook-cms-receiver/sqs';

const { SQS_ENDPOINT, QUEUE_URL, BUCKET, REDIS_URL, PREFIX, ATTEMPTS, LEASE_MS, CONCURRENCY, SLOW_MS, VISIBILITY } =
  process.env;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line) => process.stdout.write(`${line}\n`);

const aws = { endpoint: SQS_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } };
const client = new SQSClient(aws);
const bodies = { client: new S3Client({ ...aws, forcePathStyle: true }), bucket: BUCKET };
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
redis.on('error', () => {});
const dedup = redisDedupStore(redis, { keyPrefix: `${PREFIX}dedup:`, leaseMs: Number(LEASE_MS || 60_000) });

const handlers = {
  'article.sync': async (event, { job }) => {
    const id = event.deliveryId;
    const run = await redis.incr(`${PREFIX}runs:${id}`);
    say(`running ${id} ${run} ${job.receiveCount}`);
    const slug = event.article.slug;
    if (slug === 'hang-once' && run === 1) {
      say(`hanging ${id}`);
      await new Promise(() => {});
    }
    if (slug === 'slow') await sleep(Number(SLOW_MS || 1000));
    if (slug === 'poison') throw new Error(`this handler always throws (run ${run})`);
    if (slug.startsWith('ordered-')) {
      // The first of each article takes longest: a later one would overtake it without per-article order.
      if (slug.endsWith('-0')) await sleep(1500);
      await redis.rpush(`${PREFIX}order:${event.article.id}`, slug);
    }
    await redis.rpush(`${PREFIX}effects`, id);
  },
};

const worker = startWorker(
  sqsSource({
    client,
    queueUrl: QUEUE_URL,
    bodies,
    dedup,
    waitTimeSeconds: 1,
    ...(VISIBILITY ? { visibilityTimeoutSeconds: Number(VISIBILITY) } : {}),
  }),
  {
    handlers,
    dedup,
    concurrency: Number(CONCURRENCY || 2),
    retry: { attempts: Number(ATTEMPTS || 3), initialDelayMs: 1000, maxDelayMs: 2000 },
    logger: {
      warn: (text) => say(`log warn ${text}`),
      error: (text) => say(`log error ${text}`),
    },
    onError: (error, info) => {
      if (info.deadLettered) say(`dead ${info.event?.deliveryId ?? 'unreadable'} ${error?.message ?? error}`);
    },
  },
);
await worker.ready;
say('ready');
process.on('SIGTERM', () => {
  worker.close().then(() => redis.quit().then(() => process.exit(0)));
});
