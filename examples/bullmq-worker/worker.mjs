// A worker process: run as many as you like, on as many machines. Each runs the handlers for
// the deliveries the receiver enqueued; a throw is retried with backoff, and a job that keeps
// failing ends in the queue's failed set (the dead-letter list).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startWorker } from 'webhook-cms-receiver';
import { bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { connection, queueName, redisClient } from './redis.mjs';

const site = process.env.SITE_DIR ?? 'site';
await mkdir(site, { recursive: true });
// Slugs come from the service: keep them to one safe file name.
const fileOf = (slug) => join(site, `${encodeURIComponent(slug)}.json`);

const worker = startWorker(bullmqSource({ queueName, connection: connection() }), {
  handlers: {
    // Slow work is fine here: the service was answered long ago. Pass `signal` to what you await.
    'article.sync': async ({ article }) => {
      if (article.status === 'published') {
        await writeFile(fileOf(article.slug), JSON.stringify(article, null, 2));
        console.log(`published ${article.slug}`);
      } else {
        await rm(fileOf(article.slug), { force: true });
        console.log(`unpublished ${article.slug} (${article.status})`);
      }
    },
    'article.trash': async ({ article }) => {
      await rm(fileOf(article.slug), { force: true });
      console.log(`trashed ${article.slug}`);
    },
    test: () => console.log('test delivery received'),
  },
  // Shared by every worker: a job BullMQ runs twice (a killed worker) has its effect once.
  dedup: redisDedupStore(redisClient(), { keyPrefix: 'webhooks:worker:' }),
  // A sync retried after a trash must not bring the article back.
  ordering: true,
  onStale: ({ articleId, timestamp, newerTimestamp }) =>
    console.log(`skipped a stale delivery for article ${articleId} (${timestamp} < ${newerTimestamp})`),
  concurrency: Number(process.env.CONCURRENCY ?? 4),
});
try {
  await worker.ready;
} catch (error) {
  // Redis unreachable at start (wrong REDIS_URL, Redis not running): say so and stop, so a
  // process manager restarts the worker rather than it idling while deliveries pile up.
  console.error(error.message);
  process.exit(1);
}
console.log(`worker ready on queue ${queueName}`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    // Finishes the jobs it is running, takes no new ones.
    await worker.close();
    process.exit(0);
  });
}
