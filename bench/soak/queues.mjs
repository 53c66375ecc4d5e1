// The queue engine of `--queue`: the receiving side's `DeliveryQueue` and the workers' job
// source, on the Redis or Postgres the run started. Queue and schema names are fixed: one run,
// one throwaway server.

const QUEUE = 'soak';

function bullConnection(redisUrl) {
  const url = new URL(redisUrl);
  // null: BullMQ's blocking commands must wait out a Redis restart instead of failing.
  return { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
}

async function pgBoss(databaseUrl) {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'soak_boss', maintenanceIntervalSeconds: 5 });
  boss.on('error', () => {}); // a Postgres restart is expected; the engine reconnects
  await boss.start();
  return boss;
}

/** `{ queue, close() }` for a receiving process. */
export async function openQueue(config) {
  if (config.queue === 'bullmq') {
    const { Queue } = await import('bullmq');
    const { bullmqQueue } = await import('webhook-cms-receiver/bullmq');
    const queue = new Queue(QUEUE, { connection: bullConnection(config.redisUrl) });
    queue.on('error', () => {});
    return { queue: bullmqQueue(queue), close: () => queue.close().catch(() => {}) };
  }
  const { pgBossQueue } = await import('webhook-cms-receiver/pg-boss');
  const boss = await pgBoss(config.databaseUrl);
  return {
    queue: pgBossQueue(boss, QUEUE),
    close: () => boss.stop({ graceful: false, wait: true }).catch(() => {}),
  };
}

/** `{ source, close() }` for a worker process. */
export async function openSource(config) {
  if (config.queue === 'bullmq') {
    const { bullmqSource } = await import('webhook-cms-receiver/bullmq');
    const source = bullmqSource({
      queueName: QUEUE,
      connection: bullConnection(config.redisUrl),
      lockDuration: 5_000,
      stalledInterval: 2_500,
    });
    return { source, close: async () => {} };
  }
  const { pgBossSource } = await import('webhook-cms-receiver/pg-boss');
  const boss = await pgBoss(config.databaseUrl);
  return {
    source: pgBossSource(boss, QUEUE, { pollingIntervalSeconds: 0.5, expireInSeconds: 10 }),
    close: () => boss.stop({ graceful: false, wait: true }).catch(() => {}),
  };
}
