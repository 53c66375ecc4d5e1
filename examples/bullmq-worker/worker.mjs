// A worker process: run as many as you like, on as many machines. Each runs the handlers for
// the deliveries the receiver enqueued; a throw is retried with backoff, and a job that keeps
// failing ends in the queue's failed set (the dead-letter list).
import { startWorker } from 'webhook-cms-receiver';
import { bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { connection, queueName, redisClient } from './redis.mjs';
import { openSite } from './site.mjs';

// The publishing rules of webhook-cms-receiver/publish (public only when published and due,
// 301 for an old slug, 410 once trashed or archived), written as static files: see site.mjs.
const site = await openSite({
  redis: redisClient(),
  dir: process.env.SITE_DIR ?? 'site',
  publicUrl: (process.env.PUBLIC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
  siteTitle: process.env.SITE_TITLE || undefined,
  prefix: `${queueName}:site:`,
});
console.log(`publishing ${process.env.SITE_DIR ?? 'site'}/ for ${process.env.PUBLIC_URL ?? 'http://127.0.0.1:8080'}/`);
const publish = async (event) => {
  const change = await site.apply(event);
  console.log(`${change.kind} ${change.slug} (${event.type})`);
};

const worker = startWorker(bullmqSource({ queueName, connection: connection() }), {
  handlers: {
    // Slow work is fine here: the service was answered long ago. Pass `signal` to what you await.
    'article.sync': publish,
    'article.trash': publish,
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
// Once Redis answers: rewrite the pages from the shared state (a schedule that came due while no
// worker ran, a change another worker made) and set the timers for scheduled articles.
await site.rebuild();
console.log(`worker ready on queue ${queueName}`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    // Finishes the jobs it is running, takes no new ones.
    await worker.close();
    process.exit(0);
  });
}
