import { describeThrown } from '../internal/describe.js';
import type { Database } from './database.js';
import { explainPostgresError } from './postgres-errors.js';
import type { Tables } from './table-sql.js';

/**
 * A store sweeps on its first claim and then on every this-many claims. Once per claim, as a
 * CTE of the claim statement, the sweep cost Postgres more planning than the claim itself
 * (0.11 of the claim's 0.13 ms under `EXPLAIN (ANALYZE, SUMMARY)`); once per 16 it is noise.
 * The first claim sweeps so that short-lived processes (a serverless instance that handles
 * one delivery) still sweep.
 */
export const SWEEP_EVERY = 16;

/**
 * Rows a sweep deletes at most from each table: four times what {@link SWEEP_EVERY} claims
 * add (one delivery row, at most one article row each), so the tables never grow past what
 * the retention keeps, and a backlog (after downtime, or a retention shortened) drains.
 */
export const SWEEP_ROWS = 64;

/**
 * The statement that deletes expired rows ($1 at most from each table), oldest first, from both tables: a delivery past
 * its lease or retention, an article whose mark and hold both lapsed. SKIP LOCKED: a sweep
 * never waits for a claim, nor for another sweep. A claim racing it for the same expired row
 * is safe either way: the upsert takes the row over once the delete commits, and a row the
 * upsert locked first is skipped.
 */
export function sweepStatement(tables: Tables): string {
  return `WITH swept AS (
  DELETE FROM ${tables.deliveries} WHERE id IN (
    SELECT id FROM ${tables.deliveries} WHERE expires_at <= now()
    ORDER BY expires_at LIMIT $1::int FOR UPDATE SKIP LOCKED)
)
DELETE FROM ${tables.articles} WHERE article_id IN (
  SELECT article_id FROM ${tables.articles}
  WHERE expires_at <= now() AND (holder_expires_at IS NULL OR holder_expires_at <= now())
  ORDER BY expires_at LIMIT $1::int FOR UPDATE SKIP LOCKED)`;
}

/** Decides which claims sweep, and runs their sweeps. */
export interface Sweeper {
  /**
   * Counts a claim. Every {@link SWEEP_EVERY}th (the first included) owes a sweep; a claim
   * that finds sweeps owed and none running starts one here, as a promise that settles when it
   * is done; the others get undefined.
   */
  due(): Promise<void> | undefined;
}

/** A sweep running longer than this is taken for lost (a half-open connection): another may start. */
const STUCK_MS = 60_000;
/** The most sweeps that came due that one statement does at once: 16 × 64 rows. */
const MOST_OWED = 16;

/**
 * One per store: the claim count is the store's, so each process sweeps in proportion to its
 * own claims. One sweep runs at a time (four beside the shared statement of 64 concurrent
 * claims cost Postgres more than the claims): sweeps that come due meanwhile are owed, and
 * the next one deletes their rows too, so the store still deletes four times what it adds.
 */
export function sweeper({ db, tables, ready }: { db: Database; tables: Tables; ready: () => Promise<void> }): Sweeper {
  const statement = sweepStatement(tables);
  let count = 0;
  let owed = 0;
  let running: { since: number } | undefined;
  return {
    due() {
      if (count === 0) owed++;
      count = (count + 1) % SWEEP_EVERY;
      if (owed === 0 || (running && Date.now() - running.since < STUCK_MS)) return undefined;
      const rounds = Math.min(owed, MOST_OWED);
      owed -= rounds;
      const mark = { since: Date.now() };
      running = mark;
      const started = sweep({ db, tables, statement, ready, rows: SWEEP_ROWS * rounds });
      const done = () => {
        if (running === mark) running = undefined;
      };
      started.then(done, done);
      return started;
    },
  };
}

interface SweepRun {
  db: Database;
  tables: Tables;
  statement: string;
  ready: () => Promise<void>;
  /** The most rows it deletes from each table. */
  rows: number;
}

async function sweep({ db, tables, statement, ready, rows }: SweepRun): Promise<void> {
  try {
    await ready();
  } catch {
    return; // The claim waits for the same tables and fails with their error: reported once, there.
  }
  try {
    await db.query(statement, [rows], true);
  } catch (error) {
    const explained = explainPostgresError(error, tables, 'sweep expired rows');
    if (explained !== error) throw explained;
    throw new Error(`postgresDedupStore could not sweep expired rows: ${describeThrown(error)}.`, { cause: error });
  }
}
