/**
 * Queue mode on [pg-boss](https://github.com/timgit/pg-boss) (PostgreSQL):
 * `pgBossQueue(boss, name)` for the receiving process, `pgBossSource(boss, name)` for
 * `startWorker`. `pg-boss` (10) is an optional peer dependency of this entry only.
 *
 * @example
 * ```ts
 * import PgBoss from 'pg-boss';
 * import { createReceiver, startWorker } from 'webhook-cms-receiver';
 * import { pgBossQueue, pgBossSource } from 'webhook-cms-receiver/pg-boss';
 * const boss = new PgBoss(process.env.DATABASE_URL!);
 * await boss.start();
 * const receiver = createReceiver({ token, queue: pgBossQueue(boss, 'webhooks') });
 * const worker = startWorker(pgBossSource(boss, 'webhooks'), { handlers, dedup: postgresDedupStore(pool, { transactional: true }) });
 * ```
 * @module webhook-cms-receiver/pg-boss
 */
import type PgBoss from 'pg-boss';
import {
  DEFAULT_RETRY,
  type DeliveryQueue,
  isJobFailure,
  type JobResult,
  type JobSource,
  type QueuedDelivery,
  type RetryOptions,
  type RetryPolicy,
} from 'webhook-cms-receiver';
import { sha256Hex } from '../queue/ids.js';
import { DEFAULT_PG_BOSS_SCHEMA, pgBossStats } from './stats.js';

/**
 * What this entry needs of a started `PgBoss` (pg-boss 10) instance.
 *
 * @example
 * ```ts
 * const boss: PgBossLike = new PgBoss(process.env.DATABASE_URL!);
 * ```
 */
export type PgBossLike = Pick<
  PgBoss,
  'send' | 'work' | 'offWork' | 'complete' | 'createQueue' | 'updateQueue' | 'getQueue' | 'getJobById'
> &
  // Optional, so objects shaped for the rest still fit: only `stats()` reads pg-boss's database.
  Partial<Pick<PgBoss, 'getDb'>>;

/**
 * The pg-boss job id for a delivery id: a UUID made from the SHA-256 of the id's UTF-16 code
 * units (pg-boss ids are UUIDs), so a second send of one delivery inserts nothing.
 *
 * @example
 * ```ts
 * const job = await boss.getJobById('webhooks', await pgBossJobId(deliveryId));
 * ```
 */
export async function pgBossJobId(deliveryId: string): Promise<string> {
  const hex = await sha256Hex(deliveryId);
  // Version 8 (custom) and the RFC 4122 variant, so tools that check the bits accept it.
  const version = `8${hex.slice(13, 16)}`;
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16) + hex.slice(17, 20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${variant}-${hex.slice(20, 32)}`;
}

/** How often a hybrid answer looks at its job. */
const POLL_MS = 100;

/**
 * The dead-letter queue of a queue, `<name>_dead`: where pg-boss moves jobs out of retries
 * and where fatal failures are sent.
 *
 * @example
 * ```ts
 * const dead = await boss.fetch(pgBossDeadLetterQueue('webhooks'), { batchSize: 20 });
 * ```
 */
export function pgBossDeadLetterQueue(queueName: string): string {
  return `${queueName}_dead`;
}

/** Options of {@link pgBossQueue}. */
export interface PgBossQueueOptions {
  /**
   * Retries for a queue this call creates: pg-boss copies the queue's retry settings into
   * each job as it is sent, so give the same `retry` as `startWorker`. Default the worker's
   * default (10 attempts, 1 s first delay).
   */
  retry?: RetryOptions;
  /** The schema pg-boss was started with (its `schema` option), which `stats()` reads. Default `pgboss`, as pg-boss's. */
  schema?: string;
}

/**
 * The producer for `createReceiver({ queue })`: sends each verified delivery to the pg-boss
 * queue with the job id {@link pgBossJobId} of its delivery id; a send that finds that job
 * (pg-boss inserts nothing) is answered as a duplicate. Creates the queue and its dead-letter
 * queue (`<name>_dead`) when missing.
 *
 * `stats()` (for `openTelemetry({ queue })`), one query on pg-boss's job table: `depth` counts
 * the jobs in the states `created` and `retry`; `oldestAgeSeconds` is the age of the oldest
 * one whose `start_after` has passed. Give `schema` when pg-boss runs in another schema.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, queue: pgBossQueue(boss, 'webhooks'), dedup: postgresDedupStore(pool) });
 * ```
 */
export function pgBossQueue(boss: PgBossLike, queueName: string, options: PgBossQueueOptions = {}): DeliveryQueue {
  if (typeof boss?.send !== 'function')
    throw new TypeError('pgBossQueue needs a started PgBoss: pgBossQueue(boss, name)');
  let ready: Promise<void> | undefined;
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  return {
    async enqueue(delivery) {
      ready ??= ensureQueue(boss, queueName, policy, undefined, false).catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
      await ready;
      if (delivery.deliveryId === null) {
        await boss.send(queueName, delivery);
        return {};
      }
      const id = await boss.send(queueName, delivery, { id: await pgBossJobId(delivery.deliveryId) });
      return { duplicate: id === null };
    },
    async waitForResult(delivery, { timeoutMs }) {
      if (delivery.deliveryId === null) return undefined;
      const id = await pgBossJobId(delivery.deliveryId);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await boss.getJobById(queueName, id);
        const result = job?.output as JobResult | null | undefined;
        if (job?.state === 'completed' && result?.ok === true) return result;
        if (job?.state === 'failed' || job?.state === 'cancelled' || Date.now() + POLL_MS > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    stats: pgBossStats(boss, queueName, options.schema ?? DEFAULT_PG_BOSS_SCHEMA),
  };
}

/** Options of {@link pgBossSource}. */
export interface PgBossSourceOptions {
  /** How often an idle worker polls. pg-boss's default is 2 s. */
  pollingIntervalSeconds?: number;
  /**
   * How long a job may stay active before pg-boss takes it back and retries it (a killed
   * worker): the job's lease. Counts as an attempt. Default pg-boss's 15 minutes; keep it
   * above the worker's `handlerTimeoutMs`.
   */
  expireInSeconds?: number;
}

/** A pg-boss job as the handlers get it in `context.job`. */
export type PgBossJob = PgBoss.JobWithMetadata<QueuedDelivery>;

/**
 * The consumer for `startWorker`, on `boss.work`. At start it sets the queue's retries from
 * the worker's: `retryLimit` = attempts − 1, `retryDelay` = the first delay in whole seconds,
 * `retryBackoff: true` (pg-boss then waits `retryDelay × 2^n / 2 × (1 + random)`: exponential
 * with jitter, but its cap is pg-boss's own, 2^16 × `retryDelay`, not `maxDelayMs`), and the
 * dead-letter queue `<name>_dead`, where pg-boss moves a job out of retries. A job whose
 * lease (`expireInSeconds`) lapses is retried by pg-boss's maintenance and counts as an
 * attempt. A fatal error before the last attempt is sent to the dead-letter queue here and the
 * job completed, since pg-boss would otherwise retry it.
 *
 * **What commits together**, with `postgresDedupStore(pool, { transactional: true })` on the
 * database that holds pg-boss's schema: the handler's writes through `context.tx`, the
 * delivery's done row and the job's completion are one transaction. A crash or a failed commit
 * leaves none of them: pg-boss retries the job after its lease. Other stores: the effect is
 * deduplicated, and a job completed after its effect committed is at worst run again into a
 * `done` answer.
 *
 * @example
 * ```ts
 * const worker = startWorker(pgBossSource(boss, 'webhooks', { expireInSeconds: 600 }), {
 *   handlers: { 'article.sync': async ({ article }, { tx }) => (tx as PoolClient).query('…', [article.id]) },
 *   dedup: postgresDedupStore(pool, { transactional: true }),
 * });
 * ```
 */
export function pgBossSource(
  boss: PgBossLike,
  queueName: string,
  options: PgBossSourceOptions = {},
): JobSource<PgBossJob> {
  if (typeof boss?.work !== 'function')
    throw new TypeError('pgBossSource needs a started PgBoss: pgBossSource(boss, name)');
  const workers: string[] = [];
  const deadLetter = pgBossDeadLetterQueue(queueName);
  return {
    async start(run, { concurrency, retry }) {
      await ensureQueue(boss, queueName, retry, options.expireInSeconds, true);
      const work = {
        batchSize: 1,
        includeMetadata: true as const,
        pollingIntervalSeconds: options.pollingIntervalSeconds,
      };
      // One pg-boss worker per concurrent job: each fetches and runs one job at a time.
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work<QueuedDelivery>(queueName, work, async ([job]) => {
          if (!job) return;
          const completeIn = (tx: unknown, result: JobResult) => completeThrough(boss, queueName, job.id, tx, result);
          try {
            // pg-boss keeps what the callback returns as the job's output, where a hybrid answer reads it.
            return await run({ delivery: job.data, job, attempt: job.retryCount + 1, completeIn });
          } catch (error) {
            // pg-boss retries every throw until retryLimit; a fatal one goes to the dead letters now.
            if (isJobFailure(error) && !error.retry && job.retryCount < job.retryLimit) {
              await boss.send(deadLetter, job.data as object);
              return { deadLettered: true, error: error.message };
            }
            throw error;
          }
        });
        workers.push(id);
      }
    },
    async close() {
      for (const id of workers.splice(0)) await boss.offWork({ id });
    },
  };
}

/** Creates the queue (and its dead-letter queue) when missing; a source also sets its retries. */
async function ensureQueue(
  boss: PgBossLike,
  name: string,
  retry: RetryPolicy,
  expireInSeconds: number | undefined,
  update: boolean,
): Promise<void> {
  const deadLetter = pgBossDeadLetterQueue(name);
  await createIfMissing(boss, deadLetter, {});
  const settings = {
    retryLimit: retry.attempts - 1,
    retryDelay: Math.max(1, Math.round(retry.initialDelayMs / 1000)),
    retryBackoff: true,
    deadLetter,
    ...(expireInSeconds === undefined ? {} : { expireInSeconds }),
  };
  const created = await createIfMissing(boss, name, settings);
  if (!created && update) await boss.updateQueue(name, { name, ...settings });
}

/**
 * True when this call created it. Another process creating it at the same time is fine:
 * pg-boss's `create_queue` may then fail (a unique violation, or a deadlock on its partition
 * tables), so it looks again, a few times.
 */
async function createIfMissing(boss: PgBossLike, name: string, settings: Omit<PgBoss.Queue, 'name'>): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(name)) return false;
    try {
      await boss.createQueue(name, { name, ...settings });
      return true;
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** Completes a job through the store's transaction: a `pg` client, or a `postgres` transaction `sql`. */
async function completeThrough(
  boss: PgBossLike,
  name: string,
  id: string,
  tx: unknown,
  result: JobResult,
): Promise<void> {
  const client = tx as {
    query?: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
    unsafe?: (text: string, values: unknown[]) => Promise<unknown[]>;
  };
  let executeSql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
  if (typeof client.query === 'function') executeSql = (text, values) => client.query!(text, values);
  else if (typeof client.unsafe === 'function')
    executeSql = async (text, values) => ({ rows: await client.unsafe!(text, values) });
  else return;
  // The output also says how it was completed: pg-boss's own completion after the callback then finds nothing to do.
  const output = { ...result, completedIn: 'the dedup transaction' };
  await boss.complete(name, id, output, { db: { executeSql: executeSql as PgBoss.Db['executeSql'] } });
}
