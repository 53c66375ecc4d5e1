import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { pgBossQueue } from 'webhook-cms-receiver/pg-boss';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { memorySdk } from '../opentelemetry/sdk.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { freshQueueName, sleep } from './queue-helpers.js';

const token = 'pg-boss-stats-token';
const server: StartedPostgres = await startPostgres();
const describeWithServer = (name: string, body: () => void) =>
  server.url ? describe(name, body) : describe.skip(`${name} (skipped: ${HOW_TO_RUN_POSTGRES})`, body);

describeWithServer('pgBossQueue(…).stats(): the backlog on Postgres', () => {
  let boss: PgBoss;
  const schema = `wcr_stats_${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    boss = new PgBoss({ connectionString: server.url, schema, supervise: false, schedule: false });
    boss.on('error', () => {});
    await boss.start();
  }, 60_000);
  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true });
    await server.stop();
  });

  it('counts created and retry jobs; the age is the oldest ready one, by the database clock', async () => {
    const name = freshQueueName('stats');
    const queue = pgBossQueue(boss, name, { schema });
    const receiver = createReceiver({ token, queue, logger: false });
    for (const deliveryId of ['s-1', 's-2', 's-3']) {
      const answer = await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      expect(answer.body).toEqual({ ok: true, queued: true });
    }
    await sleep(60);
    const waiting = await queue.stats!();
    expect(waiting.depth).toBe(3);
    expect(waiting.oldestAgeSeconds).toBeGreaterThan(0.05);
    expect(waiting.oldestAgeSeconds).toBeLessThan(30);

    // A job that may not start yet counts in the depth, not in the age.
    await boss.send(name, { later: true }, { startAfter: 3600 });
    const [taken] = await boss.fetch(name, { batchSize: 3 });
    expect(taken).toBeDefined();
    const rest = await queue.stats!();
    // Three were taken (now active): the later one is left, and nothing is ready.
    expect(rest).toEqual({ depth: 1, oldestAgeSeconds: undefined });
  });

  it('an empty queue is depth 0; a wrong schema rejects, and through openTelemetry reports nothing', async () => {
    const name = freshQueueName('empty');
    await boss.createQueue(name);
    expect(await pgBossQueue(boss, name, { schema }).stats!()).toEqual({ depth: 0, oldestAgeSeconds: undefined });
    const wrong = pgBossQueue(boss, name, { schema: 'no_such_schema' });
    await expect(wrong.stats!()).rejects.toThrow();
    await expect(pgBossQueue(boss, name, { schema: 'bad; drop' }).stats!()).rejects.toThrow(/plain SQL name/);

    const sdk = memorySdk();
    openTelemetry({ ...sdk.providers, queue: wrong });
    expect((await sdk.points('webhook.queue.depth')).points).toEqual([]);
    openTelemetry({ ...sdk.providers, queue: pgBossQueue(boss, name, { schema }) });
    expect((await sdk.points('webhook.queue.depth')).points.map((point) => point.value)).toEqual([0]);
    await sdk.shutdown();
  });
});
