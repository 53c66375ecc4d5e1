import type { PgBossDb } from './boss.js';
import type { QueueStats } from 'webhook-cms-receiver';

/** pg-boss's default schema, as `new PgBoss()` uses it. */
export const DEFAULT_PG_BOSS_SCHEMA = 'pgboss';

/** What {@link pgBossStats} reads through: the database of a started `PgBoss`. */
export interface PgBossDbSource {
  getDb?(): PgBossDb;
}

/**
 * The queue's backlog in one query on pg-boss's job table, timed by the database's clock so
 * the processes' clocks do not matter. `created` and `retry` are the states before `active`
 * (pg-boss's `getQueueSize` counts the same); a job is ready once its `start_after` passed,
 * which is also the condition pg-boss fetches by.
 */
export function pgBossStats(boss: PgBossDbSource, queueName: string, schema: string): () => Promise<QueueStats> {
  // Checked once, up front: the name goes into the SQL text, as in pg-boss's own statements.
  const plain = /^[a-z_][a-z0-9_]*$/i.test(schema);
  const sql = `SELECT count(*)::int AS depth,
      extract(epoch FROM now() - min(created_on) FILTER (WHERE start_after < now()))::float8 AS oldest
    FROM ${schema}.job WHERE name = $1 AND state < 'active'`;
  return async () => {
    if (!plain) throw new TypeError(`pg-boss stats: schema must be a plain SQL name, got "${schema}"`);
    if (typeof boss.getDb !== 'function') throw new TypeError('pg-boss stats need a started PgBoss (its getDb)');
    const result = await boss.getDb().executeSql(sql, [queueName]);
    const row = result.rows[0] as { depth: number; oldest: number | null } | undefined;
    const oldest = row?.oldest;
    return {
      depth: Number(row?.depth ?? 0),
      oldestAgeSeconds: oldest === null || oldest === undefined ? undefined : Math.max(0, Number(oldest)),
    };
  };
}
