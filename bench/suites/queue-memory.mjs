// Redis memory of queue mode on BullMQ (issue 37 item 6): fresh 1 KiB deliveries through a
// receiver in queue mode with the Redis store (README's setup), drained by one worker process
// (queue-worker.mjs: the Redis store, concurrency 1), and at each checkpoint (10,000 and
// 100,000 in the full plan) Redis's `used_memory` (INFO memory) against before, per delivery,
// split by `MEMORY USAGE` summed over every key: the receiver's dedup keys, the worker's, and
// BullMQ's keys. Measured with the retention the contract and bullmqQueue set (dedup keys kept
// 72 h; completed jobs removed as they complete, BullMQ's event stream capped at about 10,000
// events) and, at the first checkpoint only, with every completed job kept
// (`removeOnComplete: false`, the behaviour before issue 31), for comparison.

import { createReceiver } from 'webhook-cms-receiver';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { table } from '../lib/report.mjs';
import { startRedis } from '../lib/services.mjs';
import { forkWorker } from './queue.mjs';

const SIZE = 1024;

async function usedMemory(redis) {
  await redis.call('MEMORY', 'PURGE').catch(() => {});
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)[1]);
}

/** Keys matching `pattern` and the sum of their `MEMORY USAGE` (every element counted: SAMPLES 0). */
async function keyBytes(redis, pattern) {
  let keys = 0;
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (found.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of found) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    for (const [error, usage] of await pipeline.exec()) if (!error && usage !== null) bytes += Number(usage);
    keys += found.length;
  } while (cursor !== '0');
  return { keys, bytes };
}

async function drained(queue) {
  for (;;) {
    const left = await queue.getJobCounts('wait', 'paused', 'prioritized', 'delayed', 'active');
    if (Object.values(left).every((count) => count === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One queue filled up to each of `checkpoints` in turn; a row per checkpoint. */
async function fill({ redisUrl, Queue, Redis, bullmqQueue, redisDedupStore, worker, checkpoints, keep, label, tag }) {
  const { hostname, port } = new URL(redisUrl);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null, enableOfflineQueue: false };
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queueName = `bench-memory-${Date.now()}-${tag}`;
  const queue = new Queue(queueName, { connection });
  const receiverPrefix = `bench:${queueName}:receiver:`;
  const workerPrefix = `bench:${queueName}:worker:`;
  try {
    await queue.waitUntilReady();
    const before = await usedMemory(redis);
    await worker.ask({ start: { queueName, handler: 'noop', keyPrefix: workerPrefix } }, 'ready');
    const receiver = createReceiver({
      token: TOKEN,
      queue: bullmqQueue(queue, keep ? { jobOptions: { removeOnComplete: false } } : {}),
      dedup: redisDedupStore(redis, { keyPrefix: receiverPrefix }),
    });
    const rows = [];
    let sent = 0;
    for (const checkpoint of checkpoints) {
      while (sent < checkpoint) {
        const batch = freshDeliveries(SIZE, Math.min(50, checkpoint - sent));
        const answers = await Promise.all(batch.map((delivery) => receiver.handle(delivery)));
        if (answers.some((answer) => answer.status !== 200)) throw new Error('a delivery was not queued');
        sent += batch.length;
      }
      await drained(queue);
      const bytes = (await usedMemory(redis)) - before;
      const parts = {
        receiver: await keyBytes(redis, `${receiverPrefix}*`),
        worker: await keyBytes(redis, `${workerPrefix}*`),
        bullmq: await keyBytes(redis, `${queue.opts.prefix ?? 'bull'}:${queueName}:*`),
      };
      rows.push({ label, deliveries: checkpoint, bytes, perDelivery: bytes / checkpoint, parts });
    }
    await worker.ask({ stop: true }, 'stopped');
    return rows;
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    for (const prefix of [receiverPrefix, workerPrefix]) {
      const keys = await redis.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    }
    await redis.quit();
  }
}

/**
 * @param {{ checkpoints: number[] }} options deliveries at which memory is read, ascending
 * @returns {Promise<{ checkpoints: number[], skipped?: string, rows?: object[] }>}
 */
export async function queueMemorySuite({ checkpoints }) {
  const redis = await startRedis().catch((error) => ({ missing: error.message }));
  if (redis.missing) return { checkpoints, skipped: redis.missing };
  const { Queue } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const { bullmqQueue } = await import('webhook-cms-receiver/bullmq');
  const { redisDedupStore } = await import('webhook-cms-receiver/redis');
  const worker = await forkWorker(redis.url);
  try {
    const shared = { redisUrl: redis.url, Queue, Redis, bullmqQueue, redisDedupStore, worker };
    const rows = [
      ...(await fill({
        ...shared,
        checkpoints,
        keep: false,
        tag: 'removed',
        label: 'default retention (completed jobs removed)',
      })),
      ...(await fill({
        ...shared,
        checkpoints: checkpoints.slice(0, 1),
        keep: true,
        tag: 'kept',
        label: 'every completed job kept (removeOnComplete: false)',
      })),
    ];
    return { checkpoints, rows };
  } finally {
    worker.child.kill();
    await redis.stop();
  }
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const perDelivery = (bytes, deliveries) => `${Math.round(bytes / deliveries).toLocaleString('en-US')} B`;

/** The suite's table, as markdown, or why it was not measured. */
export function queueMemoryReport(result) {
  if (result.skipped) return `Not measured: ${result.skipped}.`;
  const rows = result.rows.map((r, i) => {
    const previous = result.rows[i - 1]?.label === r.label ? result.rows[i - 1] : undefined;
    return [
      r.label,
      r.deliveries.toLocaleString('en-US'),
      mib(r.bytes),
      perDelivery(r.bytes, r.deliveries),
      previous ? perDelivery(r.bytes - previous.bytes, r.deliveries - previous.deliveries) : '—',
      `${perDelivery(r.parts.receiver.bytes, r.deliveries)} (${r.parts.receiver.keys.toLocaleString('en-US')} keys)`,
      `${perDelivery(r.parts.worker.bytes, r.deliveries)} (${r.parts.worker.keys.toLocaleString('en-US')} keys)`,
      `${mib(r.parts.bullmq.bytes)} (${r.parts.bullmq.keys.toLocaleString('en-US')} keys)`,
    ];
  });
  return (
    `Redis \`used_memory\` (INFO memory, after \`MEMORY PURGE\`) after that many fresh 1 KiB deliveries through a receiver in queue mode with the Redis store, drained by one worker process with the Redis store, against before; then \`MEMORY USAGE\` (SAMPLES 0) summed over the receiver's dedup keys, the worker's dedup keys and BullMQ's keys of the queue. The dedup keys stay their retention (72 h by default) in both rows; BullMQ keeps its event stream (about 10,000 events) and, by default, no completed job. \`MEMORY USAGE\` leaves out Redis's per-key expiry entries and dictionary growth, which \`used_memory\` counts.\n\n` +
    table(
      [
        'retention',
        'deliveries',
        'Redis memory added',
        'per delivery',
        'per delivery since the row above',
        "receiver's dedup keys, per delivery",
        "worker's dedup keys, per delivery",
        "BullMQ's keys",
      ],
      rows,
    )
  );
}
