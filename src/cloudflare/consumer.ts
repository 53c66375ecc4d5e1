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
import { reasonOf, sendDeadLetter } from './dead-letter.js';
import { bodiesOption, type QueueBatchLike, type QueueMessageLike, type QueueProducerLike } from './queue.js';
import { carriedCount, requeueDeferred, requeueOption } from './requeue.js';
import { settledBefore } from '../queue/settled.js';

/** Options of {@link queueConsumer}: those of `startWorker`, plus the R2 bucket, the queue's own producer and where dead letters go. */
export interface QueueConsumerOptions extends WorkerOptions<QueueMessageLike<QueueMessageBody>> {
  /**
   * The R2 bucket binding that `cloudflareQueue({ bodies })` writes large bodies to: the
   * consumer reads them back, and deletes each once its delivery completed. Required.
   */
  bodies: R2BucketLike;
  /**
   * The producer binding of the queue this consumer consumes (`env.WEBHOOKS`, the one
   * `cloudflareQueue` sends to). A delivery whose claim another worker holds (a copy running,
   * or the claim of an isolate that died mid-job, until its lease lapses) is sent back to it as
   * a new message, delayed with the worker's backoff and carrying the count of its real
   * attempts as `deferred`, and the original is acknowledged: Cloudflare counts every
   * `retry()` as an attempt, a new message starts at 1, so waiting for a claim costs none.
   * Required.
   */
  requeue: QueueProducerLike<unknown>;
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
 * a failure with the worker's backoff (`message.retry({ delaySeconds })`). A delivery another
 * worker holds is put back through `requeue` instead, so it costs no attempt; `attempt` counts
 * the runs of every copy. One message failing never fails the rest of its batch. Options may
 * depend on `env`, for bindings.
 *
 * @example
 * ```ts
 * const consume = queueConsumer((env: Env) => ({
 *   handlers: { 'article.sync': ({ article }) => publish(article) },
 *   dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
 *   bodies: env.WEBHOOK_BODIES,
 *   requeue: env.WEBHOOKS,
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
  requeue: QueueProducerLike<unknown>;
  attempts: number;
  delayMs: (attempt: number) => number;
  report: (text: string) => void;
}

/** A worker on a source that Cloudflare pushes batches to, rather than one that pulls. */
function consumerFor(options: QueueConsumerOptions): Promise<Consumer> {
  const bodies = bodiesOption(options?.bodies, 'queueConsumer({ handlers, bodies: env.WEBHOOK_BODIES, … })');
  const requeue = requeueOption(options.requeue);
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
    requeue,
    attempts: retry.attempts,
    delayMs: (attempt) => retryDelayMs(retry, attempt),
    report: (text) => {
      if (logger) (logger.error as (text: string) => unknown)(`queueConsumer: ${text}`);
    },
  }));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function consume(message: Message, consumer: Consumer): Promise<void> {
  // A copy put back for a held claim counts its runs from where the original stopped.
  const { body, count } = carriedCount(message.body);
  const attempt = count.attempts + message.attempts;
  const deadLetter = (reason: string) => sendDeadLetter(message, consumer, { body, reason, attempts: attempt });
  const defer = (delayMs: number) =>
    requeueDeferred(message, consumer, { body, attempts: attempt - 1, deferrals: count.deferrals, delayMs });
  let delivery: QueuedDelivery;
  try {
    delivery = await fromMessage(body, consumer.bodies);
  } catch (error) {
    if (error instanceof BodyGone && error.missing) {
      const settled = await settledBefore(body as OutOfLineDelivery, consumer.dedup, consumer.ordering);
      if (settled === 'done') {
        message.ack();
        return;
      }
      if (settled === 'running') return await defer(consumer.delayMs(attempt + count.deferrals));
    }
    // R2 failing is worth a retry, within the attempts; a body that is gone is not.
    if (!(error instanceof BodyGone) && attempt < consumer.attempts) {
      message.retry({ delaySeconds: Math.ceil(consumer.delayMs(attempt) / 1000) });
      return;
    }
    const reason = `the body could not be read back from R2: ${error instanceof Error ? error.message : String(error)}`;
    consumer.report(
      `a message of delivery ${(body as Partial<QueuedDelivery>)?.deliveryId ?? '(none)'} fails for good: ${reason}`,
    );
    await deadLetter(reason);
    return;
  }
  try {
    await consumer.run({ delivery, job: message, attempt, deferrals: count.deferrals });
  } catch (error) {
    if (isJobFailure(error) && error.deferred) return await defer(error.delayMs);
    if (isJobFailure(error) && error.retry) {
      message.retry({ delaySeconds: Math.max(0, Math.ceil(error.delayMs / 1000)) });
      return;
    }
    await deadLetter(reasonOf(error));
    return;
  }
  message.ack();
  const ref = referenceOf(body);
  if (!ref) return;
  try {
    await consumer.bodies.delete(ref.key);
  } catch (error) {
    // The delivery is done; the copy is left to the bucket's lifecycle rule.
    consumer.report(`could not delete ${ref.key} from R2 after its delivery completed: ${String(error)}`);
  }
}
