// Redis memory of queue mode on BullMQ: `deliveries` fresh 1 KiB deliveries through a receiver
// in queue mode with the Redis store (README's setup), drained by one worker process
// (queue-worker.mjs: the Redis store, concurrency 1), then Redis's `used_memory` (INFO memory)
// against what it was before, per delivery. Measured with bullmqQueue's default retention
// (completed jobs removed as they complete) and, for comparison, with every completed job kept
// (`removeOnComplete: false`, the behaviour before issue 31). What stays either way: the
// receiver's and the worker's dedup keys (72 h) and BullMQ's event stream (about 10,000 events).

import { createReceiver } from 'webhook-cms-receiver';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { table } from '../lib/report.mjs';
import { startRedis } from '../lib/services.mjs';
import { forkWorker } from './queue.mjs';

const SIZE = 1024;

async function usedMemory(redis) {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)[1]);
}

async function fill({ redisUrl, Queue, Redis, bullmqQueue, redisDedupStore, worker, deliveries, keep, label, tag }) {
  const { hostname, port } = new URL(redisUrl);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null, enableOfflineQueue: false };
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queueName = `bench-memory-${Date.now()}-${tag}`;
  const queue = new Queue(queueName, { connection });
  try {
    await queue.waitUntilReady();
    await redis.call('MEMORY', 'PURGE').catch(() => {});
    const before = await usedMemory(redis);
    await worker.ask({ start: { queueName, handler: 'noop', keyPrefix: `bench:${queueName}:worker:` } }, 'ready');
    const receiver = createReceiver({
      token: TOKEN,
      queue: bullmqQueue(queue, keep ? { jobOptions: { removeOnComplete: false } } : {}),
      dedup: redisDedupStore(redis, { keyPrefix: `bench:${queueName}:receiver:` }),
    });
    const all = freshDeliveries(SIZE, deliveries);
    for (let i = 0; i < all.length; i += 50) {
      const answers = await Promise.all(all.slice(i, i + 50).map((delivery) => receiver.handle(delivery)));
      if (answers.some((answer) => answer.status !== 200)) throw new Error('a delivery was not queued');
    }
    for (;;) {
      const left = await queue.getJobCounts('wait', 'paused', 'prioritized', 'delayed', 'active');
      if (Object.values(left).every((count) => count === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await worker.ask({ stop: true }, 'stopped');
    await redis.call('MEMORY', 'PURGE').catch(() => {});
    const after = await usedMemory(redis);
    return { label, bytes: after - before, perDelivery: (after - before) / deliveries };
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    const keys = await redis.keys(`bench:${queueName}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await redis.quit();
  }
}

/**
 * @param {{ deliveries: number }} options
 * @returns {Promise<{ deliveries: number, skipped?: string, rows?: object[] }>}
 */
export async function queueMemorySuite({ deliveries }) {
  const redis = await startRedis().catch((error) => ({ missing: error.message }));
  if (redis.missing) return { deliveries, skipped: redis.missing };
  const { Queue } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const { bullmqQueue } = await import('webhook-cms-receiver/bullmq');
  const { redisDedupStore } = await import('webhook-cms-receiver/redis');
  const worker = await forkWorker(redis.url);
  try {
    const shared = { redisUrl: redis.url, Queue, Redis, bullmqQueue, redisDedupStore, worker, deliveries };
    const rows = [
      await fill({ ...shared, keep: false, tag: 'removed', label: 'default retention (completed jobs removed)' }),
      await fill({ ...shared, keep: true, tag: 'kept', label: 'every completed job kept (removeOnComplete: false)' }),
    ];
    return { deliveries, rows };
  } finally {
    worker.child.kill();
    await redis.stop();
  }
}

/** The suite's table, as markdown, or why it was not measured. */
export function queueMemoryReport(result) {
  if (result.skipped) return `Not measured: ${result.skipped}.`;
  const rows = result.rows.map((r) => [
    r.label,
    `${(r.bytes / 1024 / 1024).toFixed(1)} MiB`,
    `${Math.round(r.perDelivery).toLocaleString('en-US')} B`,
  ]);
  return (
    `Redis \`used_memory\` (INFO memory) after ${result.deliveries.toLocaleString('en-US')} fresh 1 KiB deliveries through a receiver in queue mode with the Redis store, drained by one worker process with the Redis store, against before; the dedup keys of both stores (72 h) and BullMQ's event stream stay in both rows.\n\n` +
    table(['retention', 'Redis memory added', 'per delivery'], rows)
  );
}
