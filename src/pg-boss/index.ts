/**
 * Queue mode on [pg-boss](https://github.com/timgit/pg-boss) (PostgreSQL):
 * `pgBossQueue(boss, name)` for the receiving process, `pgBossSource(boss, name)` for
 * `startWorker`. `pg-boss` (10, 11 or 12) is an optional peer dependency of this entry only.
 *
 * @example
 * ```ts
 * import { PgBoss } from 'pg-boss'; // pg-boss 12; `import PgBoss from 'pg-boss'` in 10 and 11
 * import { createReceiver, startWorker } from 'webhook-cms-receiver';
 * import { pgBossQueue, pgBossSource } from 'webhook-cms-receiver/pg-boss';
 * const boss = new PgBoss(process.env.DATABASE_URL!);
 * boss.on('error', (error) => console.error('pg-boss:', error.message)); // without it, a database restart ends the process
 * await boss.start();
 * const receiver = createReceiver({ token, queue: pgBossQueue(boss, 'webhooks') });
 * const worker = startWorker(pgBossSource(boss, 'webhooks'), { handlers, dedup: postgresDedupStore(pool, { transactional: true }) });
 * ```
 * @module webhook-cms-receiver/pg-boss
 */
import {
  DEFAULT_RETRY,
  type DeliveryQueue,
  type JobResult,
  type RetryOptions,
  withQueueMode,
} from 'webhook-cms-receiver';
import { queueJobKey, sha256Hex } from '../queue/ids.js';
import type { PgBossCompleter, PgBossDb, PgBossQueueAdmin, PgBossSender } from './boss.js';
import { ensureQueue } from './queues.js';
import { DEFAULT_PG_BOSS_SCHEMA, pgBossStats } from './stats.js';

export type {
  PgBossCompleter,
  PgBossDb,
  PgBossFailer,
  PgBossFetcher,
  PgBossJobOf,
  PgBossQueueAdmin,
  PgBossQueueSettings,
  PgBossSender,
} from './boss.js';
export { pgBossDeadLetterQueue } from './queues.js';
export { type PgBossJob, type PgBossSourceLike, type PgBossSourceOptions, pgBossSource } from './source.js';

/**
 * What {@link pgBossQueue} needs of a started `PgBoss` (pg-boss 10, 11 or 12) instance.
 *
 * @example
 * ```ts
 * const boss: PgBossLike = new PgBoss(process.env.DATABASE_URL!);
 * ```
 */
export interface PgBossLike extends PgBossSender, PgBossCompleter, PgBossQueueAdmin {
  // Optional, so objects shaped for the rest still fit: only `stats()` reads pg-boss's database.
  getDb?(): PgBossDb;
}

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
  return withQueueMode({
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
      const id = await boss.send(queueName, delivery, { id: await pgBossJobId(queueJobKey(delivery)!) });
      return { duplicate: id === null };
    },
    async waitForResult(delivery, { timeoutMs }) {
      const key = queueJobKey(delivery);
      if (key === null) return undefined;
      const id = await pgBossJobId(key);
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
  });
}
