import type { PgBossQueueAdmin, PgBossQueueSettings } from './boss.js';
import type { RetryPolicy } from 'webhook-cms-receiver';

type QueueAdmin = PgBossQueueAdmin;

/**
 * The dead-letter queue of a queue, `<name>_dead`: where pg-boss moves jobs out of retries
 * and where fatal failures go. Each dead letter's `output.error` says why it failed.
 *
 * @example
 * ```ts
 * const dead = await boss.fetch(pgBossDeadLetterQueue('webhooks'), { batchSize: 20 });
 * ```
 */
export function pgBossDeadLetterQueue(queueName: string): string {
  return `${queueName}_dead`;
}

/** Creates the queue (and its dead-letter queue) when missing; a source also sets its retries. */
export async function ensureQueue(
  boss: QueueAdmin,
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
async function createIfMissing(boss: QueueAdmin, name: string, settings: PgBossQueueSettings): Promise<boolean> {
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
