/**
 * A dedup store for Cloudflare Workers on Durable Objects: every instance of a Worker
 * deduplicates as one, with stale-delivery ordering (`createReceiver({ ordering: true })`).
 * Export `WebhookDedupObject` from the Worker, bind it, and pass the binding to
 * `durableObjectDedupStore`. Needs no `nodejs_compat`.
 *
 * @example
 * ```ts
 * import { durableObjectDedupStore } from 'webhook-cms-receiver/cloudflare';
 * export { WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';
 * const receiver = createReceiver({ token: env.WEBHOOK_TOKEN, dedup: durableObjectDedupStore(env.DEDUP) });
 * ```
 * @module webhook-cms-receiver/cloudflare
 */
export { durableObjectDedupStore, type DurableObjectDedupStoreOptions } from './durable-object-store.js';
export { WebhookDedupObject } from './dedup-object.js';
export {
  cloudflareQueue,
  type CloudflareQueueOptions,
  type QueueProducerLike,
  type QueueMessageLike,
  type QueueBatchLike,
} from './queue.js';
export { queueConsumer, type QueueConsumerOptions } from './consumer.js';
export {
  QUEUE_MESSAGE_MAX_BYTES,
  type R2BucketLike,
  type BodyReference,
  type OutOfLineDelivery,
  type QueueMessageBody,
} from './bodies.js';
export type { DeadLetterFailure, DeadLetterMessage } from './dead-letter.js';
export type {
  DurableObjectNamespaceLike,
  DurableObjectStubLike,
  DurableObjectResponseLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
} from './bindings.js';
