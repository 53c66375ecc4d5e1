// Child process of the queue-mode throughput bench: one worker process as README's queue mode
// runs it, `startWorker(bullmqSource(…), { handlers, dedup: redisDedupStore(redis) })` with
// concurrency 1. The parent sends { start: { queueName, handler, keyPrefix } } and then
// { stop: true }; this process answers 'ready' and 'stopped', and serves until killed.
// `handler` is 'noop' (returns at once) or 'timer' (waits 5 ms: simulated I/O).

import { Redis } from 'ioredis';
import { startWorker } from 'webhook-cms-receiver';
import { bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';

const url = new URL(process.env.REDIS_URL);
const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
const redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 1 });
const HANDLERS = {
  noop: { 'article.sync': () => {} },
  timer: { 'article.sync': () => new Promise((resolve) => setTimeout(resolve, 5)) },
};

let worker;
process.on('message', async (message) => {
  if (message.start) {
    const { queueName, handler, keyPrefix } = message.start;
    worker = startWorker(bullmqSource({ queueName, connection }), {
      handlers: HANDLERS[handler],
      dedup: redisDedupStore(redis, { keyPrefix }),
      concurrency: 1,
      logger: false,
    });
    await worker.ready;
    process.send('ready');
  } else if (message.stop) {
    await worker?.close();
    worker = undefined;
    process.send('stopped');
  }
});
process.send('started');
