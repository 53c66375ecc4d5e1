import type { PgBossCompleter, PgBossDb, PgBossFailer } from './boss.js';
import type { JobResult } from 'webhook-cms-receiver';

/** What becomes of a job once its run is over. */
export type JobOutcome =
  | { kind: 'complete'; result: JobResult }
  /** Failed: pg-boss retries it with its backoff, or dead-letters it on its last attempt. */
  | { kind: 'retry'; output: FailureOutput }
  /** Failed for good: to the dead-letter queue now, with the reason. */
  | { kind: 'dead'; output: FailureOutput }
  /** Not run (another worker holds its delivery): back to the queue after `delayMs`, not counted. */
  | { kind: 'defer'; delayMs: number };

/** A failed job's `output`, which pg-boss copies into its dead letter. */
export interface FailureOutput {
  /** The last error's message. */
  error: string;
  /** The run it happened in, 1-based. */
  attempt: number;
}

/** What settling needs from the source. */
export interface SettleContext {
  boss: PgBossCompleter & PgBossFailer & { getDb(): PgBossDb };
  queueName: string;
  schema: string;
  stopping(): boolean;
  pause(ms: number): Promise<void>;
}

/**
 * Records a job's outcome in pg-boss, awaited (pg-boss's own `work()` does not await its
 * completion: a database that goes away mid-job then kills the process with an unhandled
 * rejection). While PostgreSQL is away it tries again, 0.25 s doubling to 5 s, until it
 * answers; once the source is closing it gives up after one more try, and the job, still
 * active, comes back after its lease to meet its done row.
 */
export async function settleJob(context: SettleContext, id: string, outcome: JobOutcome): Promise<void> {
  const { queueName } = context;
  let delayMs = 250;
  for (let reported = false; ; ) {
    try {
      await record(context, id, outcome);
      return;
    } catch (error) {
      if (context.stopping()) {
        report(
          context.boss,
          `pgBossSource: gave up recording job ${id} (closing); it runs again after its lease`,
          error,
        );
        return;
      }
      if (!reported)
        report(context.boss, `pgBossSource: cannot record job ${id} of queue ${queueName}; trying again`, error);
      reported = true;
      await context.pause(delayMs);
      delayMs = Math.min(delayMs * 2, 5000);
    }
  }
}

async function record({ boss, queueName, schema }: SettleContext, id: string, outcome: JobOutcome): Promise<void> {
  const sql = (text: string, values: unknown[]) => boss.getDb().executeSql(text, values);
  switch (outcome.kind) {
    case 'complete':
      await boss.complete(queueName, id, outcome.result);
      return;
    case 'retry':
      await boss.fail(queueName, id, outcome.output);
      return;
    case 'dead':
      // No retries left: pg-boss's own fail then moves it to the dead letters, output and all.
      await sql(`UPDATE ${schema}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND state = 'active'`, [
        queueName,
        id,
      ]);
      await boss.fail(queueName, id, outcome.output);
      return;
    case 'defer':
      // pg-boss counts a run when it fetches a job it started before (retry_count + 1 if
      // started_on is set): undo that count, so the next fetch gives this run's number again.
      await sql(
        `UPDATE ${schema}.job SET
          state = (CASE WHEN retry_count = 0 THEN 'created' ELSE 'retry' END)::${schema}.job_state,
          retry_count = greatest(retry_count - 1, 0),
          started_on = CASE WHEN retry_count = 0 THEN NULL ELSE started_on END,
          start_after = now() + $3::float8 * interval '1 millisecond'
        WHERE name = $1 AND id = $2 AND state = 'active'`,
        [queueName, id, outcome.delayMs],
      );
      return;
  }
}

/**
 * Tells the `PgBoss`'s `'error'` listeners (as pg-boss reports its own troubles), or the
 * console when it has none: an `'error'` event without a listener would end the process.
 */
export function report(boss: object, message: string, cause?: unknown): void {
  const error = new Error(cause === undefined ? message : `${message}: ${describe(cause)}`, { cause });
  const emitter = boss as {
    emit?: (event: string, value: unknown) => boolean;
    listenerCount?: (event: string) => number;
  };
  if (typeof emitter.emit === 'function' && (emitter.listenerCount?.('error') ?? 0) > 0) emitter.emit('error', error);
  else if (cause !== undefined) console.error(`webhook-cms-receiver: ${error.message}`);
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
