import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createReceiver, type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { startPrivateRedis } from '../helpers/private-redis.js';
import { freePort } from '../setup/services.js';
import { describeWithRedis, freshQueueName, until } from './queue-helpers.js';

const token = 'engine-down-token';

describeWithRedis("queue mode with the engine's Redis stopped and started again (BullMQ)", () => {
  const dir = mkdtempSync(`${tmpdir()}/wcr-queue-down-`);
  let redis: ChildProcess | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    redis?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 while Redis is down, and the service's retry is enqueued and handled once it is back", async () => {
    const port = await freePort();
    redis = await startPrivateRedis(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    // What the starter recommends for the receiving side: fail at once while disconnected.
    const queue = new Queue(freshQueueName('down'), {
      connection: {
        host: '127.0.0.1',
        port,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        retryStrategy: () => 100,
      },
    });
    queue.on('error', () => {});
    closers.push(() => queue.close());
    const store = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    store.on('error', () => {});
    closers.push(() => store.quit());
    const errors: unknown[] = [];
    const receiver = createReceiver({
      token,
      queue: bullmqQueue(queue),
      dedup: redisDedupStore(store, { keyPrefix: 'receiver:' }),
      enqueueTimeoutMs: 3000,
      onError: (error) => errors.push(error),
    });
    const effects: string[] = [];
    const workerRedis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    workerRedis.on('error', () => {});
    closers.push(() => workerRedis.quit());
    const worker: QueueWorker = startWorker(
      bullmqSource({ queueName: queue.name, connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null } }),
      {
        handlers: { 'article.sync': ({ deliveryId }) => void effects.push(deliveryId) },
        dedup: redisDedupStore(workerRedis, { keyPrefix: 'worker:' }),
        logger: false,
      },
    );
    closers.push(() => worker.close());
    await worker.ready;

    redis.kill('SIGKILL');
    await once(redis, 'exit');
    const delivery = articleSyncPayload();
    const deliveryId = crypto.randomUUID();
    // Bounded by enqueueTimeoutMs whatever the engine does (test/receiver/queue-mode.test.ts
    // proves the abort); here, that a killed Redis is a 503 the service retries.
    const refused = await receiver.handle(signDelivery({ token, payload: delivery, deliveryId }));
    expect(refused.status).toBe(503);
    expect(effects).toEqual([]);

    redis = await startPrivateRedis(port, dir);
    // The service retries (a fresh signature, the same delivery id) until the answer is 200.
    let answer = refused;
    await until(
      'the retry to be accepted',
      async () => {
        answer = await receiver.handle(signDelivery({ token, payload: delivery, deliveryId }));
        return answer.status === 200;
      },
      30_000,
    );
    expect(answer.body).toEqual({ ok: true, queued: true });
    await until('the worker to handle it', () => effects.length === 1, 30_000);
    expect(effects).toEqual([deliveryId]);
    expect(errors.length).toBeGreaterThan(0);
  }, 60_000);
});
