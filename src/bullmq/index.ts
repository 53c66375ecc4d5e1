/**
 * Queue mode on [BullMQ](https://docs.bullmq.io) (Redis): `bullmqQueue(queue)` for the
 * receiving process, `bullmqSource({ queueName, connection })` for `startWorker`. `bullmq` is
 * an optional peer dependency of this entry only.
 *
 * @example
 * ```ts
 * import { Queue } from 'bullmq';
 * import { createReceiver, startWorker } from 'webhook-cms-receiver';
 * import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
 * const receiver = createReceiver({ token, queue: bullmqQueue(new Queue('webhooks', { connection })) });
 * const worker = startWorker(bullmqSource({ queueName: 'webhooks', connection }), { handlers, dedup });
 * ```
 * @module webhook-cms-receiver/bullmq
 */
import type { JobsOptions, Queue } from 'bullmq';
import { type DeliveryQueue, type JobResult, withQueueMode } from 'webhook-cms-receiver';
import { queueJobKey, sha256Hex } from '../queue/ids.js';
import { completedResult } from './completed-result.js';
import { bullmqStats } from './stats.js';
import type { BullmqJobOptions, BullmqJobOptionsOf, BullmqQueueLike } from './types.js';

/** How often a hybrid answer looks at its job. */
const POLL_MS = 50;

/** Ids of this shape are used as they are (after `d.`); anything else is hashed. */
const SAFE_ID = /^[A-Za-z0-9_.-]{1,200}$/;

/**
 * The BullMQ job id for a delivery id: `d.<id>` for ids made of letters, digits, `_`, `.` and
 * `-` (every UUID the service sends), else `h.<SHA-256 hex of its UTF-16 code units>`. The two
 * prefixes keep it one-to-one, and BullMQ refuses ids with `:` or that look like integers.
 *
 * @example
 * ```ts
 * const job = await queue.getJob(await bullmqJobId('0b6a3c1e-8f0e-4e55-9d7e-2f1f7f0c2a11'));
 * ```
 */
export async function bullmqJobId(deliveryId: string): Promise<string> {
  if (SAFE_ID.test(deliveryId)) return `d.${deliveryId}`;
  return `h.${await sha256Hex(deliveryId)}`;
}

/**
 * Options of {@link bullmqQueue}; `JobOptions` is what the queue's `add` takes (BullMQ's
 * `JobsOptions` for a BullMQ `Queue`).
 */
export interface BullmqQueueOptions<JobOptions extends object = BullmqJobOptions> {
  /**
   * Job options for every delivery, over the queue's `defaultJobOptions`. `jobId` is always
   * the delivery's. Retention defaults to {@link DEFAULT_RETENTION}: a completed job (its body
   * included) is removed at once, a dead letter is kept 7 days (at most 1,000 of them).
   */
  jobOptions?: Omit<JobOptions, 'jobId'>;
}

/**
 * How long BullMQ keeps finished jobs, by default. A completed job is removed as it completes:
 * the receiver's dedup store (72 h) and the worker's remember the delivery, so its body need
 * not stay in Redis, and a hybrid answer reads the result from the queue's event stream. A
 * dead letter (the failed set) keeps its body for 7 days, at most the newest 1,000, so that
 * `job.retry()` or `npx webhook-cms-receiver replay` can run it again once fixed.
 */
export const DEFAULT_RETENTION = Object.freeze({
  removeOnComplete: true,
  removeOnFail: Object.freeze({ age: 7 * 24 * 3600, count: 1000 }),
} as const);

/**
 * The producer for `createReceiver({ queue })`: adds each verified delivery to a BullMQ
 * `Queue` as a job named after its event, with the job id {@link bullmqJobId} of its delivery
 * id, so a copy that arrives while BullMQ still holds the job adds nothing. Give the `Queue` a
 * connection with `enableOfflineQueue: false`, so that with Redis down the add fails at once
 * and the service gets its 503 (and retries), instead of waiting out `enqueueTimeoutMs`.
 *
 * Redis Cluster: give the `Queue` and the workers a hash-tagged prefix (`prefix: '{webhooks}'`)
 * so all of a queue's keys share one slot, as BullMQ requires.
 *
 * `stats()` (for `openTelemetry({ queue })`): `depth` counts the jobs in wait, paused,
 * prioritized and delayed (retries waiting out their backoff); `oldestAgeSeconds` is the age,
 * since it was added, of the job the next free worker takes.
 *
 * @example
 * ```ts
 * const queue = new Queue('webhooks', { connection: { url: process.env.REDIS_URL, enableOfflineQueue: false } });
 * const receiver = createReceiver({ token, queue: bullmqQueue(queue), dedup: redisDedupStore(redis) });
 * app.post('/webhook', webhookHandler(receiver));
 * ```
 */
export function bullmqQueue<Q extends BullmqQueueLike>(
  given: Q,
  options: BullmqQueueOptions<BullmqJobOptionsOf<Q>> = {},
): DeliveryQueue {
  if (typeof given?.add !== 'function')
    throw new TypeError('bullmqQueue needs a BullMQ Queue: bullmqQueue(new Queue(name, { connection }))');
  // Structural for the declarations' sake only: what is given is a BullMQ Queue.
  const queue = given as unknown as Queue;
  return withQueueMode({
    async enqueue(delivery) {
      const key = queueJobKey(delivery);
      const jobId = key === null ? undefined : await bullmqJobId(key);
      await queue.add(delivery.event, delivery, {
        ...DEFAULT_RETENTION,
        ...(options.jobOptions as JobsOptions | undefined),
        jobId,
      });
    },
    // Polls the job's hash: no QueueEvents connection to hold open for a wait of a few seconds.
    // A job removed on completion has left its result in the queue's event stream.
    async waitForResult(delivery, { timeoutMs }) {
      const key = queueJobKey(delivery);
      if (key === null) return undefined;
      const jobId = await bullmqJobId(key);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await queue.getJob(jobId);
        if (!job) return completedResult(queue, jobId);
        const result = job.returnvalue as JobResult | null | undefined;
        if (result?.ok === true) return result;
        if (job.finishedOn || Date.now() + POLL_MS > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    stats: () => bullmqStats(queue),
  });
}

export { bullmqSource, type BullmqSourceOptions } from './source.js';
export type {
  BullmqConnection,
  BullmqJobLike,
  BullmqJobOptions,
  BullmqJobOptionsOf,
  BullmqJobState,
  BullmqKeepJobs,
  BullmqQueuedJobLike,
  BullmqQueueLike,
  BullmqWorkerOptions,
} from './types.js';
