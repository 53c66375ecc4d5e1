import { isJobFailure, type JobResult, type JobSource, type QueuedDelivery } from 'webhook-cms-receiver';
import type { PgBossCompleter, PgBossDb, PgBossFailer, PgBossFetcher, PgBossJobOf, PgBossQueueAdmin } from './boss.js';
import { completeThrough } from './complete-through.js';
import { type JobOutcome, report, settleJob } from './settle.js';
import { ensureQueue } from './queues.js';

/** What {@link pgBossSource} needs of a started `PgBoss` (pg-boss 10, 11 or 12). */
export interface PgBossSourceLike extends PgBossFetcher, PgBossCompleter, PgBossFailer, PgBossQueueAdmin {
  getDb(): PgBossDb;
}

/** Options of {@link pgBossSource}. */
export interface PgBossSourceOptions {
  /** How often an idle worker looks for jobs, at least 0.5. Default 2, as pg-boss's. */
  pollingIntervalSeconds?: number;
  /**
   * The job's lease: how long it may stay active before pg-boss's maintenance takes it back
   * and retries it. That is how long a job claimed by a killed worker waits before another
   * worker runs it; the lapsed run counts as an attempt. Default pg-boss's 15 minutes; keep
   * it above the worker's `handlerTimeoutMs` (5 minutes by default).
   */
  expireInSeconds?: number;
}

/**
 * A pg-boss job as the handlers get it in `context.job`: the fields pg-boss 10, 11 and 12 all
 * have (cast to your major's `JobWithMetadata` for the rest).
 */
export type PgBossJob = PgBossJobOf<QueuedDelivery>;

/**
 * The consumer for `startWorker`. At start it checks that PostgreSQL answers (so
 * `worker.ready` rejects, saying so, when it does not) and sets the queue's retries from the
 * worker's: `retryLimit` = attempts − 1, `retryDelay` = the first delay in whole seconds,
 * `retryBackoff: true` (pg-boss then waits `retryDelay × 2^n / 2 × (1 + random)`: exponential
 * with jitter, capped by pg-boss at 2^16 × `retryDelay`, not `maxDelayMs`), and the dead-letter
 * queue `<name>_dead`. Then `concurrency` loops each fetch and run one job at a time.
 *
 * A job whose lease (`expireInSeconds`) lapses, as when its worker was killed, is retried by
 * pg-boss's maintenance and counts as an attempt. A job whose delivery another worker holds
 * (a copy running now, or a killed worker's dedup claim until it lapses) is put back with the
 * worker's delay and the run is not counted, so a crash costs at most one attempt. A job that
 * fails for good goes to `<name>_dead` with `output.error`, the last error. Completing or
 * failing a job waits for PostgreSQL when it is away, so a restart of the database loses
 * nothing and stops no process.
 *
 * **What commits together**, with `postgresDedupStore(pool, { transactional: true })` on the
 * database that holds pg-boss's schema: the handler's writes through `context.tx`, the
 * delivery's done row and the job's completion are one transaction. A crash or a failed commit
 * leaves none of them: pg-boss retries the job after its lease.
 *
 * @example
 * ```ts
 * const worker = startWorker(pgBossSource(boss, 'webhooks'), {
 *   handlers: { 'article.sync': async ({ article }, { tx }) => (tx as PoolClient).query('…', [article.id]) },
 *   dedup: postgresDedupStore(pool, { transactional: true }),
 * });
 * ```
 */
export function pgBossSource(
  boss: PgBossSourceLike,
  queueName: string,
  options: PgBossSourceOptions = {},
): JobSource<PgBossJob> {
  if (typeof boss?.fetch !== 'function' || typeof boss.getDb !== 'function')
    throw new TypeError('pgBossSource needs a PgBoss (pg-boss 10, 11 or 12): pgBossSource(boss, name)');
  const pollingSeconds = options.pollingIntervalSeconds ?? 2;
  if (!(pollingSeconds >= 0.5))
    throw new TypeError(`pgBossSource: pollingIntervalSeconds must be at least 0.5, got ${pollingSeconds}`);
  let stopping = false;
  const wakers = new Set<() => void>();
  const loops: Promise<void>[] = [];
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });
  const context = { boss, queueName, schema: '', stopping: () => stopping, pause };
  const stop = () => {
    stopping = true;
    for (const wake of [...wakers]) wake();
  };

  return {
    async start(run, { concurrency, retry }) {
      await reachable(boss);
      await ensureQueue(boss, queueName, retry, options.expireInSeconds, true);
      // After ensureQueue: pg-boss 11 and 12 complete a job only on a queue they know.
      context.schema = await schemaOf(boss, queueName);
      await hasTables(boss, context.schema);
      const loop = async () => {
        while (!stopping) {
          // pg-boss answers [] while the database is away: this loop just looks again later.
          const [job] = await boss
            .fetch<QueuedDelivery>(queueName, { batchSize: 1, includeMetadata: true })
            .catch((error: unknown) => {
              report(boss, `pgBossSource: could not fetch from queue ${queueName}; looking again later`, error);
              return [];
            });
          if (!job) {
            await pause(pollingSeconds * 1000);
            continue;
          }
          const completeIn = (tx: unknown, result: JobResult) => completeThrough(boss, queueName, job.id, tx, result);
          // Past its lease pg-boss gives the job to another worker: the handler is told to stop.
          const signal = AbortSignal.timeout(Math.max(1, Number(job.expireInSeconds)) * 1000);
          let outcome: JobOutcome;
          try {
            const result = await run({ delivery: job.data, job, attempt: job.retryCount + 1, signal, completeIn });
            outcome = { kind: 'complete', result };
          } catch (error) {
            outcome = outcomeOf(error, job.retryCount + 1);
          }
          await settleJob(context, job.id, outcome);
        }
      };
      for (let i = 0; i < concurrency; i++) loops.push(loop());
      // As pg-boss's own workers do, the loops end with `boss.stop()`: a process that stops its
      // PgBoss without closing the worker still exits.
      (boss as { once?: (event: string, listener: () => void) => unknown }).once?.('stopped', stop);
    },
    async close() {
      stop();
      await Promise.all(loops.splice(0));
    },
  };
}

/** What to do with a job whose run threw. */
function outcomeOf(error: unknown, attempt: number): JobOutcome {
  const reason = error instanceof Error ? error.message : String(error);
  if (!isJobFailure(error)) return { kind: 'retry', output: { error: reason, attempt } };
  if (error.deferred) return { kind: 'defer', delayMs: error.delayMs };
  return { kind: error.retry ? 'retry' : 'dead', output: { error: reason, attempt } };
}

/**
 * One round trip before taking jobs, so `worker.ready` rejects with the fix when PostgreSQL is
 * away or the `PgBoss` was never started (pg-boss itself then answers nothing at all).
 */
async function reachable(boss: PgBossSourceLike): Promise<void> {
  let answer: unknown;
  try {
    answer = await boss.getDb().executeSql('SELECT 1 AS up', []);
  } catch (error) {
    throw new Error(
      `pgBossSource: cannot reach PostgreSQL (${error instanceof Error ? error.message : String(error)}): ` +
        "check the connection string given to new PgBoss() and that the server is up; listen to boss.on('error')",
      { cause: error },
    );
  }
  if (!(answer as { rows?: unknown[] } | undefined)?.rows)
    throw new Error('pgBossSource: the PgBoss is not started: await boss.start() before startWorker');
}

/** The source's own statements work on `<schema>.job`, the table every pg-boss major keeps jobs under. */
async function hasTables(boss: PgBossSourceLike, schema: string): Promise<void> {
  const answer = await boss.getDb().executeSql('SELECT to_regclass($1) AS job', [`${schema}.job`]);
  if ((answer as { rows?: Array<{ job: unknown }> }).rows?.[0]?.job === null)
    throw new Error(
      `pgBossSource: pg-boss has no tables in schema "${schema}" yet: await boss.start() (it creates them)`,
    );
}

/**
 * The schema this `PgBoss` was started with, read from the text of pg-boss's own completion
 * statement (run against a stand-in database that executes nothing), so the source's own
 * statements reach the same tables without a second `schema` option to keep in step. pg-boss
 * 10 updates `<schema>.job`; 11 and 12 the queue's partition (`<schema>.job_common` or its own).
 */
async function schemaOf(boss: PgBossSourceLike, queueName: string): Promise<string> {
  let text = '';
  const probe = {
    executeSql: async (sql: string) => {
      text = sql;
      return { rows: [{ count: '0', ids: [] }] };
    },
  };
  await boss.complete(queueName, '00000000-0000-0000-0000-000000000000', {}, { db: probe });
  const schema = /UPDATE\s+([a-z_][a-z0-9_]*)\.j[a-z0-9_]*\s/i.exec(text)?.[1];
  if (!schema) throw new Error('pgBossSource: cannot tell which schema this PgBoss uses: is it pg-boss 10, 11 or 12?');
  return schema;
}
