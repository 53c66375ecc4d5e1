import type { PgBossCompleter, PgBossDb } from './boss.js';
import type { JobResult } from 'webhook-cms-receiver';

/**
 * Completes a job through the store's transaction (a `pg` client, or a `postgres` transaction
 * `sql`), so the completion commits with the handler's writes and the done row.
 */
export async function completeThrough(
  boss: PgBossCompleter,
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
  // The output also says how it was completed: the source's own completion then finds nothing to do.
  const output = { ...result, completedIn: 'the dedup transaction' };
  await boss.complete(name, id, output, { db: { executeSql: executeSql as PgBossDb['executeSql'] } });
}
