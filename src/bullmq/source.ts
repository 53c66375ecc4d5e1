import { DelayedError, type Job, UnrecoverableError, Worker, type WorkerOptions as BullWorkerOptions } from 'bullmq';
import { bullClient } from './client.js';
import { runScript, type Script } from './script.js';
import { isJobFailure, type JobResult, type JobSource, type QueuedDelivery } from 'webhook-cms-receiver';
import type { BullmqJobLike, BullmqWorkerOptions } from './types.js';

/**
 * The job hash field where runs deferred for another worker's claim are counted. BullMQ
 * ignores fields it does not know, and removes the field with the job.
 */
const DEFERRALS_FIELD = 'wcr:deferrals';

/** Counts a deferral on a job that still exists: a job removed meanwhile must not come back as a stray hash. */
const COUNT_DEFERRAL: Script = {
  name: 'wcrCountDeferral',
  keys: 1,
  lua: "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HINCRBY', KEYS[1], ARGV[1], 1) end return 0",
};

/** The hash commands this source runs on BullMQ's client (ioredis, or BullMQ 6's client wrapper). */
interface HashClient {
  hget(key: string, field: string): Promise<string | null>;
  hdel(key: string, ...fields: string[]): Promise<number>;
}

/**
 * Options of {@link bullmqSource}: BullMQ's own `WorkerOptions` (`connection`, `prefix`,
 * `lockDuration`, `stalledInterval`, …) plus the queue's name. `concurrency` comes from
 * `startWorker`, and `maxStalledCount` is the worker's attempts unless given.
 */
export interface BullmqSourceOptions extends BullmqWorkerOptions {
  queueName: string;
}

/**
 * The consumer for `startWorker`, on a BullMQ `Worker`. Retries are the worker's: a failed run
 * is moved to BullMQ's delayed set for the worker's backoff (`job.moveToDelayed`, no BullMQ
 * `attempts` needed on the jobs), and a job that fails for good, or is fatal, is failed with
 * `UnrecoverableError`, so it stays in the queue's failed set: the dead-letter list
 * (`queue.getFailed()`, `job.retry()` re-runs one), its `failedReason` saying why.
 *
 * Attempts are BullMQ's `attemptsStarted`, which counts a run whose lock lapsed (a killed
 * worker, a stalled job), less the runs deferred because another worker held the delivery's
 * claim (a copy running, or a killed worker's claim until its lease lapses): those are moved
 * to the delayed set without using an attempt, so a worker killed mid-job costs its delivery
 * one attempt. The failure of every other run is written to the job's log.
 *
 * Handlers get the job as {@link BullmqJobLike}; for BullMQ's whole `Job`, give it as the type
 * argument: `bullmqSource<Job<QueuedDelivery>>({ … })`.
 *
 * `worker.ready` rejects when the first connection to Redis fails (an unreachable host, a
 * closed port, a refused password); the BullMQ worker still goes on trying, and reconnects
 * by itself after any later loss, until `worker.close()`.
 *
 * @example
 * ```ts
 * const worker = startWorker(bullmqSource({ queueName: 'webhooks', connection: { host: '127.0.0.1', port: 6379 } }), {
 *   handlers,
 *   dedup: redisDedupStore(redis),
 * });
 * ```
 */
export function bullmqSource<J extends BullmqJobLike = BullmqJobLike>(options: BullmqSourceOptions): JobSource<J> {
  if (typeof options?.queueName !== 'string' || options.queueName === '') {
    throw new TypeError(
      "bullmqSource needs { queueName, connection }: bullmqSource({ queueName: 'webhooks', connection })",
    );
  }
  const { queueName, ...workerOptions } = options;
  let worker: Worker<QueuedDelivery> | undefined;
  let reachedRedis = false;
  return {
    async start(run, { concurrency, retry, warn }) {
      const bull: Worker<QueuedDelivery> = new Worker<QueuedDelivery>(
        queueName,
        async (job: Job<QueuedDelivery>, token?: string, signal?: AbortSignal): Promise<JobResult> => {
          const key = bull.toKey(job.id!);
          // Only a run after an earlier one can have been deferred: the first run costs no round trip.
          const deferrals: number =
            job.attemptsStarted > 1
              ? Number(await ((await bullClient(bull)) as HashClient).hget(key, DEFERRALS_FIELD)) || 0
              : 0;
          const attempt = Math.max(1, job.attemptsStarted - deferrals);
          try {
            // Kept as the job's `returnvalue`, where a hybrid answer reads its published_url.
            // J is BullMQ's Job, or a part of it: what runs is always BullMQ's Job.
            return await run({ delivery: job.data, job: job as unknown as J, attempt, deferrals, signal });
          } catch (error) {
            if (!isJobFailure(error)) throw error;
            if (error.deferred) {
              await runScript(await bullClient(bull), COUNT_DEFERRAL, [key, DEFERRALS_FIELD]);
            } else {
              await job.log(`attempt ${attempt}: ${error.message}`).catch(() => {});
            }
            if (!error.retry) {
              // A dead letter re-run with `job.retry()` starts its count afresh.
              await ((await bullClient(bull)) as HashClient).hdel(key, DEFERRALS_FIELD).catch(() => {});
              throw new UnrecoverableError(error.message);
            }
            await job.moveToDelayed(Date.now() + error.delayMs, token);
            // Tells BullMQ the job was moved on purpose: it is neither completed nor failed.
            throw new DelayedError();
          }
        },
        // Structural for the declarations' sake only: the options are BullMQ's WorkerOptions.
        { maxStalledCount: retry.attempts, ...(workerOptions as BullWorkerOptions), concurrency, autorun: true },
      );
      worker = bull;
      await connected(bull, queueName, warn);
      reachedRedis = true;
    },
    async close() {
      // A worker that never reached Redis has no job to let finish, and BullMQ 6's graceful
      // close waits for a connection that never comes: close it at once.
      await worker?.close(!reachedRedis);
    },
  };
}

/**
 * Resolves once the worker's first connection is up; rejects when it fails first. The BullMQ
 * worker goes on reconnecting, and runs jobs once Redis is there, until `close()`.
 */
async function connected(worker: Worker, queueName: string, warn?: (message: string) => void): Promise<void> {
  // Stays for the worker's life: BullMQ reconnects by itself, and an unheard 'error' would crash the process.
  let said = '';
  worker.on('error', (error) => {
    const detail = error instanceof Error ? error.message : String(error);
    const message = `worker: BullMQ on queue "${queueName}": ${detail} (BullMQ recovers by itself: it reconnects, and a job whose lock was lost runs again)`;
    // Once per distinct message in a row: a Redis outage repeats the same one on every reconnect attempt.
    if (message !== said) warn?.(message);
    said = message;
  });
  worker.on('ready', () => {
    said = '';
  });
  try {
    await new Promise<void>((resolve, reject) => {
      // A macrotask later: BullMQ leaves a rejection unhandled when the worker is closed inside its own 'error' emit.
      const failed = (error: unknown) => setTimeout(() => reject(error), 0);
      worker.once('error', failed);
      worker.waitUntilReady().then(() => {
        worker.off('error', failed);
        resolve();
      }, failed);
    });
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      `bullmqSource: the worker for queue "${queueName}" cannot reach Redis (${detail}); check bullmqSource's ` +
        'connection (host, port, password, TLS) and that Redis is running. It keeps retrying until close().',
      { cause },
    );
  }
}
