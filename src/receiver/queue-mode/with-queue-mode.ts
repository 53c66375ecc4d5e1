import { QUEUE_PIPELINE, type QueuePipelineFactory } from './queue-pipeline.js';
import { createQueuePipeline } from './queue-mode.js';
import type { DeliveryQueue } from '../queue-types.js';

/**
 * Makes a {@link DeliveryQueue} of your own usable as `createReceiver`'s `queue`. Queue mode's
 * code comes with the queue, so an endpoint without one does not bundle it; the engines'
 * `bullmqQueue`, `pgBossQueue` and `cloudflareQueue` already return such queues. Returns a new
 * object that calls yours: `queue` is not changed.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({
 *   token: process.env.WEBHOOK_TOKEN!,
 *   queue: withQueueMode({ enqueue: (delivery) => myQueue.push(delivery) }),
 * });
 * ```
 */
export function withQueueMode(queue: DeliveryQueue): DeliveryQueue {
  if (typeof queue?.enqueue !== 'function') {
    throw new TypeError('withQueueMode needs a queue with an enqueue(delivery, { signal }) method.');
  }
  const wrapped: DeliveryQueue & { [QUEUE_PIPELINE]: QueuePipelineFactory } = {
    enqueue: (delivery, options) => queue.enqueue(delivery, options),
    [QUEUE_PIPELINE]: createQueuePipeline,
  };
  // Only the methods the queue has: queueWaitMs and the telemetry gauges look for them.
  if (typeof queue.waitForResult === 'function') {
    wrapped.waitForResult = (delivery, options) => queue.waitForResult!(delivery, options);
  }
  if (typeof queue.stats === 'function') wrapped.stats = () => queue.stats!();
  return wrapped;
}
