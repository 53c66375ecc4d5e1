import { existsSync } from 'node:fs';
import { Queue } from 'bullmq';
import PgBoss from 'pg-boss';
import { afterAll, expect, it } from 'vitest';
import { createReceiver, type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { pgBossQueue, pgBossSource } from 'webhook-cms-receiver/pg-boss';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { cliPath, runCli } from '../cli/run-cli.js';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl, until } from './queue-helpers.js';

const token = 'replay-token';
const postgres: StartedPostgres = await startPostgres();
const built = existsSync(cliPath);

/** A handler that fails until it is fixed, and what it did once it worked. */
function fixable() {
  const state = { broken: true, effects: [] as string[] };
  const handlers = {
    'article.sync': ({ deliveryId }: { deliveryId: string }) => {
      if (state.broken) throw new Error('the CMS image host is down');
      state.effects.push(deliveryId);
    },
  };
  return { state, handlers };
}

describeWithRedis('webhook-cms-receiver replay (the built CLI)', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await postgres.stop();
  });

  it.skipIf(!built)('names every missing input at once, and is listed in the top-level help', async () => {
    const run = await runCli(['replay'], { env: { REDIS_URL: '', DATABASE_URL: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing --engine bullmq|pg-boss');
    expect(run.stderr).toContain('missing --queue NAME');
    expect((await runCli(['--help'])).stdout).toContain('webhook-cms-receiver replay --engine bullmq|pg-boss');
    expect((await runCli(['replay', '--help'])).stdout).toMatch(/^Usage: webhook-cms-receiver replay /);
  });

  it.skipIf(!built)(
    '--engine bullmq lists the failed set, and --all runs the dead letters again once fixed',
    async () => {
      const queue = new Queue(freshQueueName('replay'), { connection: bullConnection() });
      closers.push(async () => {
        await queue.obliterate({ force: true });
        await queue.close();
      });
      const { state, handlers } = fixable();
      const worker: QueueWorker = startWorker(bullmqSource({ queueName: queue.name, connection: bullConnection() }), {
        handlers,
        retry: { attempts: 2, initialDelayMs: 50 },
        logger: false,
        onError: () => {},
      });
      closers.push(() => worker.close());
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const deliveryId = crypto.randomUUID();
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      await until('the dead letter', async () => (await queue.getFailedCount()) === 1);

      const args = ['replay', '--engine', 'bullmq', '--queue', queue.name, '--redis-url', redisUrl!];
      const listed = await runCli([...args, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const { deadLetters } = JSON.parse(listed.stdout) as {
        deadLetters: Array<{ deliveryId: string; reason: string }>;
      };
      expect(deadLetters).toEqual([expect.objectContaining({ deliveryId, reason: 'the CMS image host is down' })]);

      state.broken = false;
      const replayed = await runCli([...args, '--all']);
      expect(replayed.code, replayed.stderr).toBe(0);
      expect(replayed.stdout).toContain('1 replayed, 0 failed');
      await until('the replayed job to run', () => state.effects.length === 1);
      expect(state.effects).toEqual([deliveryId]);
      expect(await queue.getFailedCount()).toBe(0);
    },
  );

  it.skipIf(!built || !postgres.url)(
    '--engine pg-boss lists <queue>_dead, and --id runs one dead letter again once fixed',
    async () => {
      const schema = `wcr_replay_${crypto.randomUUID().slice(0, 8)}`;
      const boss = new PgBoss({ connectionString: postgres.url, schema });
      boss.on('error', () => {});
      await boss.start();
      closers.push(() => boss.stop({ graceful: false, wait: true }));
      const name = freshQueueName('replay').replaceAll('-', '_');
      const { state, handlers } = fixable();
      const worker = startWorker(pgBossSource(boss, name, { pollingIntervalSeconds: 0.5 }), {
        handlers,
        retry: { attempts: 1 },
        logger: false,
        onError: () => {},
      });
      closers.push(() => worker.close());
      await worker.ready;
      const receiver = createReceiver({ token, queue: pgBossQueue(boss, name, { retry: { attempts: 1 } }) });
      const deliveryId = crypto.randomUUID();
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      await until('the dead letter', async () => (await boss.getQueueSize(`${name}_dead`)) === 1, 20_000);

      const args = [
        'replay',
        '--engine',
        'pg-boss',
        '--queue',
        name,
        '--database-url',
        postgres.url!,
        '--schema',
        schema,
      ];
      const listed = await runCli([...args, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const { deadLetters } = JSON.parse(listed.stdout) as { deadLetters: Array<{ id: string; deliveryId: string }> };
      expect(deadLetters).toEqual([expect.objectContaining({ deliveryId, event: 'article.sync' })]);

      state.broken = false;
      const replayed = await runCli([...args, '--id', deadLetters[0]!.id]);
      expect(replayed.code, replayed.stderr).toBe(0);
      await until('the replayed job to run', () => state.effects.length === 1, 20_000);
      expect(state.effects).toEqual([deliveryId]);
      const after = await runCli([...args, '--json']);
      expect(JSON.parse(after.stdout).deadLetters).toEqual([]);
    },
  );
});
