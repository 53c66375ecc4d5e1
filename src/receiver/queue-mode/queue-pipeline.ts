import type { Pipeline } from '../pipeline.js';
import type { QueuePipelineOptions } from './queue-mode.js';

/**
 * Where a queue object carries queue mode's pipeline: `withQueueMode` puts it there, so
 * queue mode's code reaches a bundle only through a queue. A registered symbol, so a queue
 * wrapped by one copy of the package (ESM) works with a receiver from another (CommonJS).
 */
export const QUEUE_PIPELINE: unique symbol = Symbol.for('webhook-cms-receiver.queue-pipeline');

/** Builds queue mode's pipeline for one receiver. */
export type QueuePipelineFactory = (setup: QueuePipelineOptions) => Pipeline;

/** The `queue` option's pipeline, or a TypeError that names the fix. */
export function queuePipeline(setup: QueuePipelineOptions): Pipeline {
  const { queue } = setup;
  const factory = (queue as { [QUEUE_PIPELINE]?: unknown } | null | undefined)?.[QUEUE_PIPELINE];
  if (typeof factory === 'function') return (factory as QueuePipelineFactory)(setup);
  if (typeof queue?.enqueue !== 'function') {
    throw new TypeError(
      'createReceiver: queue must have an enqueue(delivery, { signal }) method, such as bullmqQueue(queue) ' +
        "from 'webhook-cms-receiver/bullmq' or pgBossQueue(boss, name) from 'webhook-cms-receiver/pg-boss'.",
    );
  }
  throw new TypeError(
    "createReceiver: queue is a DeliveryQueue of your own: pass withQueueMode(queue) from 'webhook-cms-receiver' " +
      '(bullmqQueue, pgBossQueue and cloudflareQueue return queues that need no wrapping).',
  );
}
