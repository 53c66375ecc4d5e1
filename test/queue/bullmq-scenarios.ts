import { randomUUID } from 'node:crypto';
import * as bullmq from 'bullmq';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ArticleSyncEvent,
  createReceiver,
  type DeliveryQueue,
  type DeliveryEnd,
  type DeliveryStart,
  type Instrumentation,
  memoryDedupStore,
  type QueueWorker,
  startWorker,
  type WebhookEvent,
  type WorkerErrorInfo,
  withQueueMode,
} from 'webhook-cms-receiver';
import { bullmqJobId, bullmqQueue, bullmqSource } from 'webhook-cms-receiver/bullmq';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { freePort } from '../setup/services.js';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl, sleep, until } from './queue-helpers.js';

const token = 'queue-mode-token';
type Job = import('bullmq').Job;

/**
 * Queue mode on one BullMQ major: `bullmq` as the test file resolves it (bullmq.test.ts: the
 * newest; bullmq5.test.ts mocks it to the `bullmq5` alias, in the matrix). `major` is checked
 * against the module, so a mock that did not apply fails instead of testing the newest twice.
 */
export function bullmqScenarios(major: 5 | 6): void {
  describeWithRedis(`queue mode on BullMQ ${major} (contract v3), one process`, () => {
    it(`runs on BullMQ ${major}`, () => {
      // BullMQ 6 exports its major and moved the Redis client behind getBackend(); BullMQ 5 did neither.
      const exported = 'BULLMQ_MAJOR_VERSION' in bullmq ? bullmq.BULLMQ_MAJOR_VERSION : 5;
      expect(exported).toBe(major);
      expect(typeof Queue.prototype.getBackend === 'function').toBe(major >= 6);
    });

    let redis: Redis;
    const queues: Queue[] = [];
    const workers: QueueWorker[] = [];
    beforeAll(() => {
      redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((worker) => worker.close()));
      await Promise.all(queues.splice(0).map((queue) => queue.obliterate({ force: true }).then(() => queue.close())));
    });
    afterAll(() => redis?.quit());

    const freshQueue = (label: string) => {
      const queue = new Queue(freshQueueName(label), { connection: bullConnection() });
      queues.push(queue);
      return queue;
    };
    const worker = (queue: Queue, options: Parameters<typeof startWorker<Job>>[1], source = {}) => {
      const started = startWorker(
        bullmqSource<Job>({ queueName: queue.name, connection: bullConnection(), stalledInterval: 500, ...source }),
        options,
      );
      workers.push(started);
      return started;
    };
    const post = async (receiver: ReturnType<typeof createReceiver>, payload: object, deliveryId?: string | null) => {
      const signed = signDelivery({ token, payload, ...(deliveryId === undefined ? {} : { deliveryId }) });
      const response = await webhookHandler(receiver)(
        new Request('http://localhost/webhook', { method: 'POST', headers: signed.headers, body: signed.body }),
      );
      return {
        status: response.status,
        body: await response.json(),
        deliveryId: signed.headers['X-Service-Delivery-Id'],
      };
    };
    const quietRetry = { attempts: 3, initialDelayMs: 50, maxDelayMs: 200 };

    it('answers 200 {"ok":true,"queued":true} without handlers; a worker runs the handler with the typed event, job and signal', async () => {
      const queue = freshQueue('basic');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const payload = articleSyncPayload();
      const answer = await post(receiver, payload);
      expect(answer).toMatchObject({ status: 200, body: { ok: true, queued: true } });
      expect(answer.body).not.toHaveProperty('duplicate');

      const job = await queue.getJob(await bullmqJobId(answer.deliveryId!));
      expect(job?.name).toBe('article.sync');
      expect(job?.data).toMatchObject({
        deliveryId: answer.deliveryId,
        timestamp: payload.timestamp,
        event: 'article.sync',
        tokenIndex: 0,
      });
      expect(JSON.parse(job!.data.body)).toEqual(payload);

      const seen: Array<{ event: ArticleSyncEvent; jobId: string | undefined; signal: boolean }> = [];
      worker(queue, {
        handlers: {
          'article.sync': (event, context) => {
            seen.push({ event, jobId: context.job.id, signal: context.signal instanceof AbortSignal });
          },
        },
      });
      await until('the worker to run the handler', () => seen.length === 1);
      expect(seen[0]!.event).toMatchObject({
        type: 'article.sync',
        deliveryId: answer.deliveryId,
        article: payload.article,
      });
      expect(seen[0]!.jobId).toBe(await bullmqJobId(answer.deliveryId!));
      expect(seen[0]!.signal).toBe(true);
    });

    it('answers a redelivery {"ok":true,"queued":true,"duplicate":true} without a new job, also after the engine removed the finished job', async () => {
      const queue = freshQueue('redelivery');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue, { jobOptions: { removeOnComplete: true } }) });
      const payload = articleSyncPayload();
      const deliveryId = randomUUID();
      const effects: string[] = [];
      worker(queue, { handlers: { 'article.sync': (event) => void effects.push(event.deliveryId!) } });
      expect((await post(receiver, payload, deliveryId)).body).toEqual({ ok: true, queued: true });
      await until('the handler', () => effects.length === 1);
      // removeOnComplete: BullMQ forgot the job, so only the receiver's store can tell it was done.
      await until(
        'BullMQ to remove the completed job',
        async () => (await queue.getJob(await bullmqJobId(deliveryId))) === undefined,
      );
      expect((await post(receiver, payload, deliveryId)).body).toEqual({ ok: true, queued: true, duplicate: true });
      await sleep(300);
      expect(await queue.getJobCounts('wait', 'active', 'completed', 'delayed')).toEqual({
        wait: 0,
        active: 0,
        completed: 0,
        delayed: 0,
      });
      expect(effects).toEqual([deliveryId]);
    });

    it('with a receiver store that forgot the delivery, the job id still makes the second enqueue a no-op', async () => {
      const queue = freshQueue('job-id');
      const deliveryId = `odd id: ${randomUUID()} \u0000 ✓`;
      const payload = articleSyncPayload();
      // Two receivers with stores of their own, as two processes with memory stores would be.
      for (const receiver of [
        createReceiver({ token, queue: bullmqQueue(queue) }),
        createReceiver({ token, queue: bullmqQueue(queue) }),
      ]) {
        // handle(), not a Request: Fetch headers take only Latin-1, a plain object takes any string.
        expect(await receiver.handle(signDelivery({ token, payload, deliveryId }))).toEqual({
          status: 200,
          body: { ok: true, queued: true },
        });
      }
      expect(await queue.getJobCounts('wait')).toEqual({ wait: 1 });
      expect(await bullmqJobId(deliveryId)).toMatch(/^h\.[0-9a-f]{64}$/);
    });

    it('enqueues test events sent without a delivery id, and runs their handler', async () => {
      const queue = freshQueue('test-event');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      expect((await post(receiver, testPayload(), null)).body).toEqual({ ok: true, queued: true });
      const seen: WebhookEvent[] = [];
      worker(queue, { handlers: { test: (event) => void seen.push(event) } });
      await until('the test handler', () => seen.length === 1);
      expect(seen[0]).toMatchObject({ type: 'test', deliveryId: null });
    });

    it('answers 503 when the engine cannot take the job in time, releases the claim, and the retry is enqueued once the engine is back', async () => {
      const dead = new Queue(freshQueueName('dead'), {
        connection: { host: '127.0.0.1', port: await freePort(), enableOfflineQueue: false, maxRetriesPerRequest: 0 },
      });
      dead.on('error', () => {});
      const store = memoryDedupStore();
      const errors: unknown[] = [];
      const down = createReceiver({
        token,
        dedup: store,
        queue: bullmqQueue(dead),
        enqueueTimeoutMs: 1000,
        onError: (error) => errors.push(error),
      });
      const payload = articleSyncPayload();
      const deliveryId = randomUUID();
      // Bounded by enqueueTimeoutMs whatever the engine does (test/receiver/queue-mode.test.ts
      // proves the abort); here, that a dead Redis is a 503 the service retries.
      const refused = await post(down, payload, deliveryId);
      expect(refused).toMatchObject({ status: 503, body: { error: 'Queue unavailable' } });
      expect(errors).toEqual([expect.objectContaining({ code: 'queue_unavailable' })]);
      await dead.close().catch(() => {});

      // The service retries; the engine is reachable again (same store, so the claim must have been released).
      const queue = freshQueue('back');
      const up = createReceiver({ token, dedup: store, queue: bullmqQueue(queue) });
      expect((await post(up, payload, deliveryId)).body).toEqual({ ok: true, queued: true });
      expect(await queue.getJobCounts('wait')).toEqual({ wait: 1 });
    });

    it('answers 503 when the engine rejects the job, and never runs a handler given to handle()', async () => {
      const failing: DeliveryQueue = withQueueMode({
        enqueue: async () => {
          throw new Error('engine said no');
        },
      });
      let ran = false;
      const receiver = createReceiver({ token, queue: failing, onError: () => {} });
      const signed = signDelivery({ token, payload: articleSyncPayload() });
      const answer = await receiver.handle(signed, { 'article.sync': () => void (ran = true) });
      expect(answer).toEqual({ status: 503, body: { error: 'Queue unavailable' } });
      expect(ran).toBe(false);
    });

    it('refuses ordering on a queue-mode receiver, pointing at the worker', () => {
      expect(() => createReceiver({ token, queue: bullmqQueue(freshQueue('ordering')), ordering: true })).toThrow(
        /startWorker/,
      );
    });

    it('retries a handler that throws once, with its effect once; a fatal error is dead-lettered at once', async () => {
      const queue = freshQueue('retry');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const flaky = randomUUID();
      const fatal = randomUUID();
      const runs = new Map<string, number>();
      const effects: string[] = [];
      const dead: Array<{ error: unknown; info: WorkerErrorInfo<Job> }> = [];
      worker(queue, {
        retry: quietRetry,
        logger: false,
        onError: (error, info) => dead.push({ error, info }),
        handlers: {
          'article.sync': ({ deliveryId }) => {
            const run = (runs.get(deliveryId) ?? 0) + 1;
            runs.set(deliveryId, run);
            if (deliveryId === flaky && run === 1) throw new Error('first run fails');
            if (deliveryId === fatal) throw Object.assign(new Error('cannot ever work'), { fatal: true });
            effects.push(deliveryId);
          },
        },
      });
      await post(receiver, articleSyncPayload(), flaky);
      await post(receiver, articleSyncPayload(), fatal);
      await until('the flaky delivery to succeed', () => effects.includes(flaky));
      await until('the fatal delivery to be dead-lettered', () => dead.length === 1);
      expect(runs.get(flaky)).toBe(2);
      expect(runs.get(fatal)).toBe(1);
      expect(dead[0]!.info).toMatchObject({ attempt: 1, deadLettered: true });
      expect((dead[0]!.error as Error).message).toBe('cannot ever work');
      const failed = await queue.getFailed();
      expect(failed.map((job) => job.id)).toEqual([await bullmqJobId(fatal)]);
      expect(failed[0]!.failedReason).toContain('cannot ever work');
    });

    it('dead-letters a job that always fails after its attempts, with capped backoff between them, and onError told once', async () => {
      const queue = freshQueue('exhausted');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const deliveryId = randomUUID();
      const runsAt: number[] = [];
      const dead: WorkerErrorInfo<Job>[] = [];
      worker(queue, {
        retry: { attempts: 3, initialDelayMs: 200, maxDelayMs: 300 },
        logger: false,
        onError: (_error, info) => dead.push(info),
        handlers: {
          'article.sync': () => {
            runsAt.push(Date.now());
            throw new Error('always fails');
          },
        },
      });
      await post(receiver, articleSyncPayload(), deliveryId);
      await until('the job to reach the failed set', async () => (await queue.getFailedCount()) === 1);
      expect(runsAt).toHaveLength(3);
      expect(dead).toEqual([expect.objectContaining({ attempt: 3, deadLettered: true })]);
      const [job] = await queue.getFailed();
      expect(job!.id).toBe(await bullmqJobId(deliveryId));
      // Each retry waited at least half its capped delay (equal jitter): 100 ms, then 150 ms.
      expect(runsAt[1]! - runsAt[0]!).toBeGreaterThanOrEqual(100);
      expect(runsAt[2]! - runsAt[1]!).toBeGreaterThanOrEqual(150);
      expect(await queue.getJobState(job!.id!)).toBe('failed');
    });

    it('counts a stalled run (its lock lapsed) as an attempt: with one attempt allowed, the stalled job is dead-lettered', async () => {
      const queue = freshQueue('stalled');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
      const deliveryId = randomUUID();
      let release!: () => void;
      const hung = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = false;
      // This worker's lock is never renewed: its job stalls while the handler hangs.
      const stalling = worker(
        queue,
        {
          logger: false,
          handlers: {
            'article.sync': () => {
              started = true;
              return hung;
            },
          },
        },
        { lockDuration: 500, skipLockRenewal: true, stalledInterval: 300 },
      );
      await post(receiver, articleSyncPayload(), deliveryId);
      await until('the first run to start', () => started);
      const dead: Array<{ error: unknown; info: WorkerErrorInfo<Job> }> = [];
      const other = worker(queue, {
        retry: { attempts: 1 },
        logger: false,
        onError: (error, info) => dead.push({ error, info }),
        handlers: { 'article.sync': () => {} },
      });
      await until('the stalled job to be dead-lettered', () => dead.length === 1);
      expect(dead[0]!.info).toMatchObject({ attempt: 2, deadLettered: true });
      expect(String(dead[0]!.error)).toMatch(/lapsed/);
      // onError is told before BullMQ records the failure: wait for the state, not a moment.
      const jobId = await bullmqJobId(deliveryId);
      await expect.poll(() => queue.getJobState(jobId), { timeout: 10_000 }).toBe('failed');
      release();
      await Promise.all([stalling.close(), other.close()]);
    });

    describe('ordering across two workers (shared Redis dedup store)', () => {
      it('applies only the newer of two syncs last, and skips a sync that arrives after a newer trash as stale', async () => {
        const queue = freshQueue('ordering');
        const receiver = createReceiver({ token, queue: bullmqQueue(queue) });
        const keyPrefix = `wcr-test:${randomUUID()}:`;
        const applied: Array<{ timestamp: number; type: string }> = [];
        const running = new Set<string>();
        let overlapped = false;
        const stale: number[] = [];
        const handlers = {
          'article.sync': async (event: ArticleSyncEvent) => {
            if (running.size > 0) overlapped = true;
            running.add(event.deliveryId);
            await sleep(150);
            applied.push({ timestamp: event.timestamp, type: event.type });
            running.delete(event.deliveryId);
          },
          'article.trash': (event: WebhookEvent) => void applied.push({ timestamp: event.timestamp, type: event.type }),
        };
        for (let i = 0; i < 2; i++) {
          worker(queue, {
            handlers,
            dedup: redisDedupStore(redis, { keyPrefix }),
            ordering: true,
            retry: { attempts: 10, initialDelayMs: 50, maxDelayMs: 200 },
            logger: false,
            onStale: (info) => stale.push(info.timestamp),
          });
        }
        const article = { id: randomUUID(), slug: 'ordered' };
        await Promise.all([
          post(receiver, articleSyncPayload({ timestamp: 100, article })),
          post(receiver, articleSyncPayload({ timestamp: 200, article })),
        ]);
        await until('both syncs to be settled', () => applied.length + stale.length === 2);
        expect(overlapped).toBe(false);
        expect(applied.at(-1)).toEqual({ timestamp: 200, type: 'article.sync' });

        await post(receiver, articleTrashPayload({ timestamp: 300, article }));
        await until('the trash', () => applied.some((entry) => entry.type === 'article.trash'));
        await post(receiver, articleSyncPayload({ timestamp: 250, article }));
        await until('the late sync to be skipped', () => stale.includes(250));
        expect(applied.at(-1)).toEqual({ timestamp: 300, type: 'article.trash' });
      });
    });

    it("hybrid answers (queueWaitMs): the handler's published_url when the worker finished in time, else queued", async () => {
      const queue = freshQueue('hybrid');
      const receiver = createReceiver({ token, queue: bullmqQueue(queue), queueWaitMs: 2000 });
      worker(queue, {
        handlers: {
          'article.sync': async ({ article }) => {
            if (article.slug === 'slow') await sleep(3000);
            return { publishedUrl: `https://blog.example.com/${article.slug}` };
          },
        },
      });
      expect((await post(receiver, articleSyncPayload({ article: { slug: 'quick' } }))).body).toEqual({
        ok: true,
        published_url: 'https://blog.example.com/quick',
      });
      // Answered `queued`, not with the URL: the receiver stopped waiting before the 3 s handler ended.
      expect((await post(receiver, articleSyncPayload({ article: { slug: 'slow' } }))).body).toEqual({
        ok: true,
        queued: true,
      });
      expect(() => createReceiver({ token, queue: bullmqQueue(queue), queueWaitMs: 9000 })).toThrow(RangeError);
    });

    it('instrumentation: the receiver injects its trace context into the job, the worker starts a linked process trace', async () => {
      const queue = freshQueue('traced');
      const seen: Array<{ start: DeliveryStart; ends: DeliveryEnd[]; handlerRuns: number }> = [];
      const recording: Instrumentation = {
        startDelivery(start) {
          const record = {
            start: { ...start, receivedAt: start.receivedAt },
            ends: [] as DeliveryEnd[],
            handlerRuns: 0,
          };
          seen.push(record);
          return {
            verifying() {},
            verified() {},
            runHandler: (run) => {
              record.handlerRuns++;
              return run();
            },
            inject: (carrier) => {
              carrier.traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
            },
            end: (end) => void record.ends.push(end),
          };
        },
      };
      const receiver = createReceiver({
        token,
        queue: bullmqQueue(queue, { jobOptions: { removeOnComplete: false } }),
        instrumentation: recording,
      });
      const ran: string[] = [];
      worker(queue, {
        instrumentation: recording,
        handlers: { 'article.sync': ({ deliveryId }) => void ran.push(deliveryId) },
      });
      const { deliveryId } = await post(receiver, articleSyncPayload());
      await until('the handler', () => ran.length === 1);
      await until('the process trace to end', () => seen.length === 2 && seen[1]!.ends.length === 1);
      const [receive, process] = seen;
      expect(receive!.start.kind).toBe('receive');
      expect(receive!.ends).toEqual([{ outcome: 'queued', status: 200 }]);
      expect(receive!.handlerRuns).toBe(0);
      const job = await queue.getJob(await bullmqJobId(deliveryId!));
      expect(process!.start).toEqual({ kind: 'process', receivedAt: job!.data.receivedAt, carrier: job!.data.trace });
      expect(process!.start.carrier).toEqual({ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` });
      expect(process!.ends).toEqual([{ outcome: 'processed', status: 200 }]);
      expect(process!.handlerRuns).toBe(1);
    });

    it('close() lets a running job finish and takes no new one', async () => {
      const queue = freshQueue('close');
      const receiver = createReceiver({
        token,
        queue: bullmqQueue(queue, { jobOptions: { removeOnComplete: false } }),
      });
      const done: string[] = [];
      let started = 0;
      const running = worker(queue, {
        handlers: {
          'article.sync': async ({ deliveryId }) => {
            started++;
            await sleep(400);
            done.push(deliveryId);
          },
        },
      });
      const first = await post(receiver, articleSyncPayload());
      await until('the first job to start', () => started === 1);
      await post(receiver, articleSyncPayload());
      await running.close();
      expect(done).toEqual([first.deliveryId]);
      expect(started).toBe(1);
      expect(await queue.getJobCounts('wait', 'completed')).toEqual({ wait: 1, completed: 1 });
    });
  });
}
