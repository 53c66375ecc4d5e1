import { type Job, type JobsOptions, Queue, type WorkerOptions } from 'bullmq';
import {
  type Job as Job5,
  type JobsOptions as JobsOptions5,
  Queue as Queue5,
  type WorkerOptions as WorkerOptions5,
} from 'bullmq5';
import { describe, expectTypeOf, it } from 'vitest';
import { type JobSource, type QueuedDelivery, startWorker } from 'webhook-cms-receiver';
import {
  type BullmqJobLike,
  type BullmqQueueLike,
  type BullmqSourceOptions,
  bullmqQueue,
  bullmqSource,
} from 'webhook-cms-receiver/bullmq';

// Checked by the type-check of the tests (npm run typecheck): the entry's types are its own
// (no BullMQ, no Node in its declarations), so this proves BullMQ 5's and 6's fit them.
const connection = { host: '127.0.0.1', port: 6379 };

describe('bullmq types', () => {
  it("BullMQ 6's Queue, Job and WorkerOptions fit the structural types", () => {
    expectTypeOf<Queue>().toExtend<BullmqQueueLike>();
    expectTypeOf<Queue<QueuedDelivery>>().toExtend<BullmqQueueLike>();
    expectTypeOf<Job<QueuedDelivery>>().toExtend<BullmqJobLike>();
    expectTypeOf<Job>().toExtend<BullmqJobLike>();
    expectTypeOf<
      Omit<WorkerOptions, 'concurrency' | 'autorun'> & { queueName: string }
    >().toExtend<BullmqSourceOptions>();
  });

  it("BullMQ 5's Queue, Job and WorkerOptions fit them too", () => {
    expectTypeOf<Queue5>().toExtend<BullmqQueueLike>();
    expectTypeOf<Queue5<QueuedDelivery>>().toExtend<BullmqQueueLike>();
    expectTypeOf<Job5<QueuedDelivery>>().toExtend<BullmqJobLike>();
    expectTypeOf<
      Omit<WorkerOptions5, 'concurrency' | 'autorun'> & { queueName: string }
    >().toExtend<BullmqSourceOptions>();
  });

  it("bullmqQueue takes a real Queue without a cast, with the queue's own job options", () => {
    // Only type-checked: the functions are never called, so no Queue connects.
    const build = () => {
      const queue = new Queue('webhooks', { connection });
      const jobOptions: Omit<JobsOptions, 'jobId'> = { priority: 1, attempts: 3, removeOnFail: { age: 60 } };
      bullmqQueue(queue, { jobOptions });
      bullmqQueue(queue, { jobOptions: { lifo: true, deduplication: { id: 'x' }, removeOnComplete: 10 } });
      // @ts-expect-error the job id is always the delivery's
      bullmqQueue(queue, { jobOptions: { jobId: 'mine' } });
      // @ts-expect-error not a BullMQ option
      bullmqQueue(queue, { jobOptions: { priorty: 1 } });
      const queue5 = new Queue5<QueuedDelivery>('webhooks', { connection });
      const jobOptions5: Omit<JobsOptions5, 'jobId'> = { delay: 1000 };
      bullmqQueue(queue5, { jobOptions: jobOptions5 });
      // @ts-expect-error not a queue
      bullmqQueue({ add: 1 });
    };
    expectTypeOf(build).returns.toBeVoid();
  });

  it('bullmqSource takes BullMQ 5 and 6 worker options, and hands handlers the job', () => {
    const options6: Omit<WorkerOptions, 'concurrency' | 'autorun'> = {
      connection,
      prefix: '{webhooks}',
      lockDuration: 60_000,
    };
    const options5: Omit<WorkerOptions5, 'concurrency' | 'autorun'> = {
      connection,
      limiter: { max: 10, duration: 1000 },
    };
    expectTypeOf(bullmqSource).toBeCallableWith({ queueName: 'webhooks', ...options6 });
    expectTypeOf(bullmqSource).toBeCallableWith({ queueName: 'webhooks', ...options5 });
    expectTypeOf(bullmqSource).toBeCallableWith({ queueName: 'webhooks', connection, stalledInterval: 5000 });
    const refused = () => {
      // @ts-expect-error `connection` is required, as BullMQ requires it
      bullmqSource({ queueName: 'webhooks' });
      // @ts-expect-error not a BullMQ option
      bullmqSource({ queueName: 'webhooks', connection, lockDuraton: 1 });
    };
    expectTypeOf(refused).returns.toBeVoid();

    expectTypeOf(bullmqSource).returns.toEqualTypeOf<JobSource<BullmqJobLike>>();
    expectTypeOf(bullmqSource<Job<QueuedDelivery>>).returns.toEqualTypeOf<JobSource<Job<QueuedDelivery>>>();
    const start = () =>
      startWorker(bullmqSource<Job<QueuedDelivery>>({ queueName: 'webhooks', connection }), {
        handlers: {
          'article.sync': async (_event, { job }) => {
            expectTypeOf(job).toEqualTypeOf<Job<QueuedDelivery>>();
            await job.updateProgress(50);
          },
        },
      });
    expectTypeOf(start).returns.toHaveProperty('ready');
    const startPlain = () =>
      startWorker(bullmqSource({ queueName: 'webhooks', connection }), {
        handlers: { 'article.sync': (_event, { job }) => expectTypeOf(job).toEqualTypeOf<BullmqJobLike>() },
      });
    expectTypeOf(startPlain).returns.toHaveProperty('close');
  });
});
