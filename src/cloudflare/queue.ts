import { type DeliveryQueue, withQueueMode } from 'webhook-cms-receiver';
import { QUEUE_MESSAGE_MAX_BYTES, type QueueMessageBody, type R2BucketLike, toMessage } from './bodies.js';

// The few members of the Queues API this entry uses, typed here so the package needs neither
// `@cloudflare/workers-types` nor `cloudflare:workers`; the runtime's objects fit these shapes.

/**
 * What `cloudflareQueue` needs of a Queue producer binding (`env.WEBHOOKS`): `send`.
 *
 * @example
 * ```ts
 * const producer: QueueProducerLike = env.WEBHOOKS;
 * ```
 */
export interface QueueProducerLike<Body = unknown> {
  send(body: Body, options?: { contentType?: 'json' | 'text' | 'bytes' | 'v8'; delaySeconds?: number }): Promise<void>;
}

/**
 * One message of a consumer's batch.
 *
 * @example
 * ```ts
 * for (const message of batch.messages) message.ack();
 * ```
 */
export interface QueueMessageLike<Body = unknown> {
  readonly id: string;
  readonly body: Body;
  /** How many times it was delivered, this one included (1-based). */
  readonly attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}

/**
 * The batch a Worker's `queue()` handler gets.
 *
 * @example
 * ```ts
 * async queue(batch: QueueBatchLike<QueuedDelivery>, env: Env) { await consume(batch, env); }
 * ```
 */
export interface QueueBatchLike<Body = unknown> {
  readonly queue: string;
  readonly messages: readonly QueueMessageLike<Body>[];
}

/** Options of {@link cloudflareQueue}. */
export interface CloudflareQueueOptions {
  /**
   * An R2 bucket binding (`env.WEBHOOK_BODIES`, `[[r2_buckets]]` in wrangler.toml) for bodies
   * whose message would pass {@link QUEUE_MESSAGE_MAX_BYTES}: a queue message holds 128 KB, the
   * receiver takes bodies up to 10 MiB. The message then holds a reference, and the consumer
   * deletes the object once the delivery completed. Required: the same bucket goes to
   * `queueConsumer({ bodies })`.
   */
  bodies: R2BucketLike;
}

/**
 * The producer for `createReceiver({ queue })` in the Worker that receives: sends each
 * verified delivery to a Cloudflare Queue, its body inline when the message fits
 * {@link QUEUE_MESSAGE_MAX_BYTES}, else in the R2 bucket `bodies` with the message holding a
 * reference. Queues have no job ids, so idempotency rests on the receiver's dedup store: give
 * it `durableObjectDedupStore(env.DEDUP)`, and the workers a store too, as Queues deliver at
 * least once.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({
 *   token: env.WEBHOOK_TOKEN,
 *   queue: cloudflareQueue(env.WEBHOOKS, { bodies: env.WEBHOOK_BODIES }),
 *   dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
 * });
 * return webhookHandler(receiver)(request);
 * ```
 */
export function cloudflareQueue(
  binding: QueueProducerLike<QueueMessageBody>,
  options: CloudflareQueueOptions,
): DeliveryQueue {
  if (typeof binding?.send !== 'function') {
    throw new TypeError(
      'cloudflareQueue needs a Queue producer binding: cloudflareQueue(env.WEBHOOKS, { bodies: env.WEBHOOK_BODIES })',
    );
  }
  const bodies = bodiesOption(options?.bodies, 'cloudflareQueue(env.WEBHOOKS, { bodies: env.WEBHOOK_BODIES })');
  return withQueueMode({
    async enqueue(delivery) {
      await binding.send(await toMessage(delivery, bodies), { contentType: 'json' });
    },
  });
}

/**
 * The R2 bucket option, checked where the entry is built, so a missing binding shows at the
 * first request rather than at the first large delivery.
 */
export function bodiesOption(bucket: R2BucketLike | undefined, call: string): R2BucketLike {
  if (typeof bucket?.put === 'function' && typeof bucket.get === 'function' && typeof bucket.delete === 'function') {
    return bucket;
  }
  throw new TypeError(
    `${call.split('(')[0]} needs an R2 bucket for deliveries too large for a queue message (over ` +
      `${QUEUE_MESSAGE_MAX_BYTES} bytes; the receiver takes up to 10 MiB): bind one in wrangler.toml ` +
      '([[r2_buckets]] binding = "WEBHOOK_BODIES", bucket_name = "webhook-bodies") and pass it to both entries, ' +
      `as ${call}; got ${bucket === null ? 'null' : typeof bucket}.`,
  );
}
