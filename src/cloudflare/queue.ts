import {
  type DeliveryQueue,
  isJobFailure,
  type JobResult,
  type JobSource,
  type QueuedDelivery,
  type SourceJob,
  startWorker,
  type WorkerOptions,
} from 'webhook-cms-receiver';

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

/**
 * The producer for `createReceiver({ queue })` in the Worker that receives: sends each
 * verified delivery to a Cloudflare Queue. Queues have no job ids, so idempotency rests on the
 * receiver's dedup store: give it `durableObjectDedupStore(env.DEDUP)`, and the workers a store
 * too, as Queues deliver at least once.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({
 *   token: env.WEBHOOK_TOKEN,
 *   queue: cloudflareQueue(env.WEBHOOKS),
 *   dedup: durableObjectDedupStore(env.DEDUP),
 * });
 * return webhookHandler(receiver)(request);
 * ```
 */
export function cloudflareQueue(binding: QueueProducerLike<QueuedDelivery>): DeliveryQueue {
  if (typeof binding?.send !== 'function') {
    throw new TypeError('cloudflareQueue needs a Queue producer binding: cloudflareQueue(env.WEBHOOKS)');
  }
  return {
    async enqueue(delivery) {
      await binding.send(delivery, { contentType: 'json' });
    },
  };
}

/** Options of {@link queueConsumer}: those of `startWorker`, plus where dead letters go. */
export interface QueueConsumerOptions extends WorkerOptions<QueueMessageLike<QueuedDelivery>> {
  /**
   * A producer binding to the dead-letter queue: a message that fails for good (a fatal error,
   * or its last attempt) is sent there and acknowledged. Without it the message is retried
   * once more, so the queue's own `max_retries` and `dead_letter_queue` (wrangler) decide;
   * keep `max_retries` at `retry.attempts − 1`. Cloudflare drops messages out of retries when
   * no dead-letter queue is configured.
   */
  deadLetter?: QueueProducerLike<QueuedDelivery>;
}

/**
 * The `queue()` handler of a consumer Worker: runs each message's delivery through the same
 * worker as `startWorker` (typed event, `signal`, dedup, ordering, `context.job` = the
 * message), acknowledges it when done, and retries a failure with the worker's backoff
 * (`message.retry({ delaySeconds })`). Options may depend on `env`, for bindings.
 *
 * @example
 * ```ts
 * const consume = queueConsumer((env: Env) => ({
 *   handlers: { 'article.sync': ({ article }) => publish(article) },
 *   dedup: durableObjectDedupStore(env.DEDUP),
 *   ordering: true,
 *   deadLetter: env.WEBHOOKS_DEAD,
 * }));
 * export default { fetch: receive, queue: consume };
 * ```
 */
export function queueConsumer<Env = unknown>(
  options: QueueConsumerOptions | ((env: Env) => QueueConsumerOptions),
): (batch: QueueBatchLike<QueuedDelivery>, env: Env) => Promise<void> {
  // One worker per env object: its bindings (the dedup store) are built once, not per batch.
  const workers = new WeakMap<object, Promise<Consumer>>();
  const fixed = typeof options === 'function' ? undefined : consumerFor(options);
  return async (batch, env) => {
    let consumer: Promise<Consumer>;
    if (fixed) consumer = fixed;
    else {
      const key = (typeof env === 'object' && env !== null ? env : workers) as object;
      let made = workers.get(key);
      if (!made) {
        made = consumerFor((options as (env: Env) => QueueConsumerOptions)(env));
        workers.set(key, made);
      }
      consumer = made;
    }
    const { run, deadLetter } = await consumer;
    await Promise.all(batch.messages.map((message) => consume(message, run, deadLetter)));
  };
}

type Run = (job: SourceJob<QueueMessageLike<QueuedDelivery>>) => Promise<JobResult>;

interface Consumer {
  run: Run;
  deadLetter: QueueProducerLike<QueuedDelivery> | undefined;
}

/** A worker on a source that Cloudflare pushes batches to, rather than one that pulls. */
async function consumerFor(options: QueueConsumerOptions): Promise<Consumer> {
  let run: Run | undefined;
  const source: JobSource<QueueMessageLike<QueuedDelivery>> = {
    start(given) {
      run = given;
    },
    close: async () => {},
  };
  const worker = startWorker(source, options);
  await worker.ready;
  return { run: run!, deadLetter: options.deadLetter };
}

async function consume(
  message: QueueMessageLike<QueuedDelivery>,
  run: Run,
  deadLetter: QueueProducerLike<QueuedDelivery> | undefined,
): Promise<void> {
  try {
    await run({ delivery: message.body, job: message, attempt: message.attempts });
    message.ack();
  } catch (error) {
    if (isJobFailure(error) && error.retry) {
      message.retry({ delaySeconds: Math.max(0, Math.ceil(error.delayMs / 1000)) });
      return;
    }
    if (!deadLetter) {
      message.retry();
      return;
    }
    try {
      await deadLetter.send(message.body, { contentType: 'json' });
      message.ack();
    } catch {
      // Not dead-lettered: leave it to the queue's own retries and dead-letter queue.
      message.retry();
    }
  }
}
