import {
  DEFAULT_RETRY,
  type DedupStore,
  isJobFailure,
  type JobResult,
  type JobSource,
  type QueuedDelivery,
  retryDelayMs,
  type SourceJob,
  startWorker,
  type WorkerOptions,
} from 'webhook-cms-receiver';
import {
  BodyGone,
  fromMessage,
  type OutOfLineDelivery,
  type QueueMessageBody,
  type R2BucketLike,
  referenceOf,
} from './bodies.js';
import { deadLetterMessage, reasonOf } from './dead-letter.js';
import { bodiesOption, type QueueBatchLike, type QueueMessageLike, type QueueProducerLike } from './queue.js';
import { settledBefore } from './settled.js';

/** Options of {@link queueConsumer}: those of `startWorker`, plus the R2 bucket and where dead letters go. */
export interface QueueConsumerOptions extends WorkerOptions<QueueMessageLike<QueueMessageBody>> {
  /**
   * The R2 bucket binding that `cloudflareQueue({ bodies })` writes large bodies to: the
   * consumer reads them back, and deletes each once its delivery completed. Required.
   */
  bodies: R2BucketLike;
  /**
   * A producer binding to the dead-letter queue: a message that fails for good (a fatal error,
   * its last attempt, or a body that cannot be read back) is sent there with `failure`
   * (`reason`, `attempts`, `at`) and acknowledged; a body in R2 stays there for a replay, until
   * the bucket's lifecycle rule expires it. Without it the message is retried once more, so the
   * queue's own `max_retries` and `dead_letter_queue` (wrangler) decide, without a reason; keep
   * `max_retries` at `retry.attempts − 1`. Cloudflare drops messages out of retries when no
   * dead-letter queue is configured.
   */
  deadLetter?: QueueProducerLike<unknown>;
}

/**
 * The `queue()` handler of a consumer Worker: runs each message's delivery through the same
 * worker as `startWorker` (typed event, `signal`, dedup, ordering, `context.job` = the
 * message), acknowledges it when done (deleting its body from R2 if it went there), and retries
 * a failure with the worker's backoff (`message.retry({ delaySeconds })`). One message failing
 * never fails the rest of its batch. Options may depend on `env`, for bindings.
 *
 * @example
 * ```ts
 * const consume = queueConsumer((env: Env) => ({
 *   handlers: { 'article.sync': ({ article }) => publish(article) },
 *   dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
 *   bodies: env.WEBHOOK_BODIES,
 *   ordering: true,
 *   deadLetter: env.WEBHOOKS_DEAD,
 * }));
 * export default { fetch: receive, queue: consume };
 * ```
 */
export function queueConsumer<Env = unknown>(
  options: QueueConsumerOptions | ((env: Env) => QueueConsumerOptions),
): (batch: QueueBatchLike<QueueMessageBody>, env: Env) => Promise<void> {
  // One worker per env object: its bindings (the dedup store) are built once, not per batch.
  const workers = new WeakMap<object, Promise<Consumer>>();
  const fixed = typeof options === 'function' ? undefined : consumerFor(options);
  fixed?.catch(() => {});
  return async (batch, env) => {
    let consumer: Promise<Consumer>;
    if (fixed) consumer = fixed;
    else {
      const key = (typeof env === 'object' && env !== null ? env : workers) as object;
      let made = workers.get(key);
      if (!made) {
        made = Promise.resolve().then(() => consumerFor((options as (env: Env) => QueueConsumerOptions)(env)));
        workers.set(key, made);
        // A failed start is retried with the next batch: a binding added later is picked up.
        made.catch(() => workers.delete(key));
      }
      consumer = made;
    }
    const ready = await consumer;
    // Settled one by one: a message that throws cannot end the batch while the others still run.
    await Promise.allSettled(batch.messages.map((message) => consume(message, ready)));
  };
}

type Message = QueueMessageLike<QueueMessageBody>;
type Run = (job: SourceJob<Message>) => Promise<JobResult>;

interface Consumer {
  run: Run;
  bodies: R2BucketLike;
  dedup: DedupStore | undefined;
  ordering: boolean;
  deadLetter: QueueProducerLike<unknown> | undefined;
  attempts: number;
  delaySeconds: (attempt: number) => number;
  report: (text: string) => void;
}

/** A worker on a source that Cloudflare pushes batches to, rather than one that pulls. */
function consumerFor(options: QueueConsumerOptions): Promise<Consumer> {
  const bodies = bodiesOption(options?.bodies, 'queueConsumer({ handlers, bodies: env.WEBHOOK_BODIES, … })');
  const retry = { ...DEFAULT_RETRY, ...definedOnly(options.retry ?? {}) };
  let run: Run | undefined;
  const source: JobSource<Message> = {
    start(given) {
      run = given;
    },
    close: async () => {},
  };
  const worker = startWorker(source, options);
  const logger = options.logger === undefined ? console : options.logger;
  return worker.ready.then(() => ({
    run: run!,
    bodies,
    dedup: options.dedup || undefined,
    ordering: options.ordering === true,
    deadLetter: options.deadLetter,
    attempts: retry.attempts,
    delaySeconds: (attempt) => Math.ceil(retryDelayMs(retry, attempt) / 1000),
    report: (text) => {
      if (logger) (logger.error as (text: string) => unknown)(`queueConsumer: ${text}`);
    },
  }));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function consume(message: Message, consumer: Consumer): Promise<void> {
  let delivery: QueuedDelivery;
  try {
    delivery = await fromMessage(message.body, consumer.bodies);
  } catch (error) {
    if (error instanceof BodyGone && error.missing) {
      const settled = await settledBefore(message.body as OutOfLineDelivery, consumer.dedup, consumer.ordering);
      if (settled === 'done') {
        message.ack();
        return;
      }
      if (settled === 'running') {
        message.retry({ delaySeconds: consumer.delaySeconds(message.attempts) });
        return;
      }
    }
    // R2 failing is worth a retry, within the attempts; a body that is gone is not.
    if (!(error instanceof BodyGone) && message.attempts < consumer.attempts) {
      message.retry({ delaySeconds: consumer.delaySeconds(message.attempts) });
      return;
    }
    const reason = `the body could not be read back from R2: ${error instanceof Error ? error.message : String(error)}`;
    consumer.report(`a message of delivery ${message.body?.deliveryId ?? '(none)'} fails for good: ${reason}`);
    await deadLetter(message, consumer, reason);
    return;
  }
  try {
    await consumer.run({ delivery, job: message, attempt: message.attempts });
  } catch (error) {
    if (isJobFailure(error) && error.retry) {
      message.retry({ delaySeconds: Math.max(0, Math.ceil(error.delayMs / 1000)) });
      return;
    }
    await deadLetter(message, consumer, reasonOf(error));
    return;
  }
  message.ack();
  const ref = referenceOf(message.body);
  if (!ref) return;
  try {
    await consumer.bodies.delete(ref.key);
  } catch (error) {
    // The delivery is done; the copy is left to the bucket's lifecycle rule.
    consumer.report(`could not delete ${ref.key} from R2 after its delivery completed: ${String(error)}`);
  }
}

/** Sends the message to the dead-letter queue with its reason and acknowledges it; else leaves it to the queue. */
async function deadLetter(message: Message, consumer: Consumer, reason: string): Promise<void> {
  if (!consumer.deadLetter) {
    message.retry();
    return;
  }
  try {
    const letter = await deadLetterMessage(message.body, { reason, attempts: message.attempts }, consumer.bodies);
    await consumer.deadLetter.send(letter, { contentType: 'json' });
    message.ack();
  } catch (error) {
    consumer.report(`could not send a message to the dead-letter queue, left to the queue's retries: ${String(error)}`);
    message.retry();
  }
}
