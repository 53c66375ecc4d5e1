import type { QueueMessageBody } from './bodies.js';
import type { QueueMessageLike, QueueProducerLike } from './queue.js';

/**
 * What a message put back by `queueConsumer` carries, as `deferred`, besides its delivery:
 * Cloudflare counts `attempts` per message, so the count of the runs before the copy travels
 * with it.
 */
export interface DeferredCount {
  /** Runs of the delivery that failed before this copy was sent: real attempts. */
  attempts: number;
  /** Times the delivery was put back because another worker held its claim. */
  deferrals: number;
}

/** The longest delay Cloudflare Queues take on `send` (12 hours). */
const MAX_DELAY_SECONDS = 43_200;

/**
 * The requeue option, checked where the consumer is built: without the producer of its own
 * queue, a held claim could only be waited out with `message.retry()`, which Cloudflare counts
 * as an attempt.
 */
export function requeueOption(binding: QueueProducerLike<unknown> | undefined): QueueProducerLike<unknown> {
  if (typeof binding?.send === 'function') return binding;
  throw new TypeError(
    'queueConsumer needs the producer binding of the queue it consumes, to put back a delivery whose claim ' +
      "another worker holds without using up one of its attempts (Cloudflare counts every retry): bind it in the consumer's " +
      'wrangler.toml ([[queues.producers]] binding = "WEBHOOKS", queue = "webhooks") and pass it, as ' +
      `queueConsumer({ handlers, bodies: env.WEBHOOK_BODIES, requeue: env.WEBHOOKS, … }); got ${binding === null ? 'null' : typeof binding}.`,
  );
}

/**
 * Splits a message into the body `cloudflareQueue` sent and the count it carries. A count that
 * is not two whole numbers is ignored: it cannot make a delivery run more often than
 * `retry.attempts`, since what it adds only brings the dead letter nearer.
 */
export function carriedCount(body: unknown): { body: unknown; count: DeferredCount } {
  const none = { attempts: 0, deferrals: 0 };
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('deferred' in body)) {
    return { body, count: none };
  }
  const { deferred, ...rest } = body as { deferred?: Partial<DeferredCount> };
  const whole = (n: unknown) => (Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : 0);
  return { body: rest, count: { attempts: whole(deferred?.attempts), deferrals: whole(deferred?.deferrals) } };
}

/**
 * Puts a delivery whose claim another worker holds back on its queue as a new message, delayed,
 * carrying `attempts` (its real attempts so far) and its deferrals, this one included, then
 * acknowledges the original. A copy sent but not acknowledged (the isolate dying between the
 * two) is one more copy for the dedup store to answer. When the send fails, the message is
 * retried instead: an attempt used, nothing lost.
 */
export async function requeueDeferred(
  message: QueueMessageLike<unknown>,
  to: { requeue: QueueProducerLike<unknown>; report: (text: string) => void },
  { body, attempts, deferrals, delayMs }: DeferredCount & { body: unknown; delayMs: number },
): Promise<void> {
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));
  const deferred: DeferredCount = { attempts, deferrals: deferrals + 1 };
  try {
    await to.requeue.send({ ...(body as QueueMessageBody), deferred }, { contentType: 'json', delaySeconds });
  } catch (error) {
    to.report(
      `could not put a deferred message back on its queue, retried instead (one attempt used): ${String(error)}`,
    );
    message.retry({ delaySeconds });
    return;
  }
  message.ack();
}
