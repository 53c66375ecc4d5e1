import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  type DedupStore,
  isJobFailure,
  type JobResult,
  type QueuedDelivery,
  type SourceJob,
} from 'webhook-cms-receiver';
import { BodyGone, deleteBody, getBody, type SqsBodies } from './bodies.js';
import { type QueueSetup, reasonOf, sendDeadLetter } from './dead-letter.js';
import { isFifoQueue } from './fifo.js';
import { ENVELOPE_ATTRIBUTE, readEnvelope } from './message.js';
import { requeueDeferred } from './requeue.js';
import { settledBefore } from '../queue/settled.js';

/**
 * The SQS message a handler runs for, as `context.job`: enough to find it in the queue or in
 * CloudWatch, never its receipt handle's power to delete it behind the worker's back.
 *
 * @example
 * ```ts
 * handlers: { 'article.sync': (event, { job }) => console.log((job as SqsJob).messageId) }
 * ```
 */
export interface SqsJob {
  messageId: string;
  queueUrl: string;
  /** SQS's `ApproximateReceiveCount`: every receive, deferred ones included. */
  receiveCount: number;
  /** FIFO queues: the message group (the article). */
  groupId?: string;
}

/** A received message, from `ReceiveMessage` or a Lambda event record. */
export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  receiveCount: number;
  groupId?: string;
}

type Run = (job: SourceJob<SqsJob>) => Promise<JobResult>;

/** What consuming a message needs: the same for `sqsSource` and `sqsHandler`. */
export interface Consumer {
  client: SQSClient;
  queueUrl: string;
  bodies: SqsBodies | undefined;
  setup: QueueSetup;
  run: Run;
  dedup: DedupStore | undefined;
  ordering: boolean;
  attempts: number;
  delayMs: (attempt: number) => number;
  /**
   * FIFO queues: deferrals seen per message id. SQS counts a deferred receive like any other,
   * the worker must not; a FIFO message is delayed in place (a copy would lose its place in
   * its article's order), so the process remembers them. A deferral another process made
   * counts as a receive there.
   */
  deferrals: Map<string, number>;
  report: (text: string) => void;
}

const MAX_DEFERRALS_KEPT = 10_000;
/** SQS's largest visibility timeout: 12 hours. */
const MAX_VISIBILITY_S = 43_200;

/**
 * Runs one message's delivery through the worker: deletes it when done (and its S3 body),
 * delays it with `ChangeMessageVisibility` for a retry, puts it back as a delayed copy
 * carrying its counts when another worker holds its claim (on a FIFO queue, delays it too), or
 * sends it to the dead-letter queue with its reason and deletes it. Resolves `kept` when the message stays
 * on the queue (a Lambda reports it in `batchItemFailures`), `deleted` otherwise.
 */
export async function consume(message: ReceivedMessage, consumer: Consumer): Promise<'deleted' | 'kept'> {
  const envelope = readEnvelope(message.attributes[ENVELOPE_ATTRIBUTE]?.StringValue);
  // A copy put back for a held claim counts its runs from where the original stopped.
  const carried = carriedCounts(envelope?.deferred);
  const seen = consumer.deferrals.get(message.messageId) ?? 0;
  const attempt = Math.max(1, carried.attempts + message.receiveCount - seen);
  const deferrals = carried.deferrals + seen;
  const job: SqsJob = {
    messageId: message.messageId,
    queueUrl: consumer.queueUrl,
    receiveCount: message.receiveCount,
    ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
  };
  const later = (seconds: number) => delay(message, consumer, seconds);
  const defer = async (delayMs: number): Promise<'deleted' | 'kept'> => {
    const delaySeconds = Math.ceil(delayMs / 1000);
    // A standard queue takes a new message, which starts its receive count again; a FIFO queue
    // keeps the message, so its article's order holds, and this process remembers the deferral.
    if (envelope && !isFifoQueue(consumer.queueUrl)) {
      const counts = { attempts: attempt - 1, deferrals: deferrals + 1, delaySeconds };
      const sent = await requeueDeferred(
        consumer.client,
        consumer.queueUrl,
        message,
        envelope,
        counts,
        consumer.bodies,
      ).catch((error: unknown) => {
        consumer.report(`could not put message ${message.messageId} back for a held claim: ${String(error)}`);
        return false;
      });
      if (sent) return remove(message, consumer);
    }
    if (consumer.deferrals.size >= MAX_DEFERRALS_KEPT) consumer.deferrals.clear();
    consumer.deferrals.set(message.messageId, seen + 1);
    return later(delaySeconds);
  };
  const dead = (reason: string) => deadLetter(message, consumer, reason, attempt);
  if (!envelope) {
    return dead(
      `invalid_payload: the message is not a delivery enqueued by sqsQueue (its ${ENVELOPE_ATTRIBUTE} message attribute is missing or unreadable)`,
    );
  }
  const { bodyRef, articleId: _, deferred: __, ...rest } = envelope;
  let body = message.body;
  if (bodyRef) {
    try {
      body = await getBody(consumer.bodies, bodyRef);
    } catch (error) {
      if (error instanceof BodyGone && error.missing) {
        const settled = await settledBefore(envelope, consumer.dedup, consumer.ordering);
        if (settled === 'done') return remove(message, consumer);
        if (settled === 'running') return defer(consumer.delayMs(attempt + deferrals));
      }
      // S3 failing is worth a retry, within the attempts; a body that is gone or altered is not.
      if (!(error instanceof BodyGone) && attempt < consumer.attempts) {
        return later(Math.ceil(consumer.delayMs(attempt) / 1000));
      }
      return dead(`the body could not be read back from S3: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const delivery: QueuedDelivery = { ...rest, body };
  const heartbeat = keepVisible(message, consumer);
  try {
    await consumer.run({ delivery, job, attempt, deferrals, signal: heartbeat.signal });
  } catch (error) {
    if (isJobFailure(error) && error.deferred) return await defer(error.delayMs);
    if (isJobFailure(error) && error.retry) return await later(Math.ceil(error.delayMs / 1000));
    return await dead(reasonOf(error));
  } finally {
    heartbeat.stop();
  }
  const outcome = await remove(message, consumer);
  if (bodyRef) await deleteBody(consumer.bodies, bodyRef, consumer.report);
  return outcome;
}

/** Makes the message visible again after `seconds`: the engine's retry delay. */
async function delay(message: ReceivedMessage, consumer: Consumer, seconds: number): Promise<'kept'> {
  try {
    await consumer.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: consumer.queueUrl,
        ReceiptHandle: message.receiptHandle,
        VisibilityTimeout: Math.min(Math.max(0, seconds), MAX_VISIBILITY_S),
      }),
    );
  } catch (error) {
    // The message comes back after its current visibility timeout instead.
    consumer.report(`could not delay message ${message.messageId} for its retry: ${String(error)}`);
  }
  return 'kept';
}

async function remove(message: ReceivedMessage, consumer: Consumer): Promise<'deleted'> {
  consumer.deferrals.delete(message.messageId);
  try {
    await consumer.client.send(
      new DeleteMessageCommand({ QueueUrl: consumer.queueUrl, ReceiptHandle: message.receiptHandle }),
    );
  } catch (error) {
    // A copy that comes back finds its delivery done in the dedup store.
    consumer.report(`could not delete message ${message.messageId} after it was handled: ${String(error)}`);
  }
  return 'deleted';
}

async function deadLetter(
  message: ReceivedMessage,
  consumer: Consumer,
  reason: string,
  attempts: number,
): Promise<'deleted' | 'kept'> {
  try {
    await sendDeadLetter(
      consumer.client,
      consumer.setup.deadLetterQueueUrl,
      message,
      { reason, attempts },
      consumer.bodies,
    );
  } catch (error) {
    consumer.report(
      `could not send message ${message.messageId} to the dead-letter queue (${String(error)}); it stays on the ` +
        "queue, and the queue's redrive policy moves it after maxReceiveCount receives",
    );
    return delay(message, consumer, Math.ceil(consumer.delayMs(attempts) / 1000));
  }
  return remove(message, consumer);
}

/**
 * Extends the message's visibility every third of the queue's visibility timeout while its
 * handler runs, so a long handler is not run twice; aborts `signal` when SQS says the
 * message is no longer this worker's (its receipt handle lapsed and another took it).
 */
function keepVisible(message: ReceivedMessage, consumer: Consumer): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const seconds = consumer.setup.visibilityTimeoutSeconds;
  const timer = setInterval(
    () => {
      consumer.client
        .send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: consumer.queueUrl,
            ReceiptHandle: message.receiptHandle,
            VisibilityTimeout: seconds,
          }),
        )
        .catch((error: unknown) => {
          const name = (error as { name?: unknown } | null)?.name;
          if (name === 'ReceiptHandleIsInvalid' || name === 'MessageNotInflight' || name === 'InvalidParameterValue') {
            controller.abort(new Error(`SQS took message ${message.messageId} back: ${String(error)}`));
          } else consumer.report(`could not extend the visibility of message ${message.messageId}: ${String(error)}`);
        });
    },
    Math.max(1000, (seconds * 1000) / 3),
  );
  (timer as { unref?: () => void }).unref?.();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

/** The counts a deferred copy carries; anything else reads as none. */
function carriedCounts(value: unknown): { attempts: number; deferrals: number } {
  const { attempts, deferrals } = (value ?? {}) as { attempts?: unknown; deferrals?: unknown };
  const count = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0);
  return { attempts: count(attempts), deferrals: count(deferrals) };
}
