import { isJobFailure, isWebhookError, type QueuedDelivery } from 'webhook-cms-receiver';
import {
  messageBytes,
  QUEUE_MESSAGE_MAX_BYTES,
  type QueueMessageBody,
  type R2BucketLike,
  toMessage,
} from './bodies.js';
import type { QueueMessageLike, QueueProducerLike } from './queue.js';

/** Why a message was dead-lettered, added to it as `failure`. */
export interface DeadLetterFailure {
  /** The last error's message (at most 1000 characters), or why the body could not be read. */
  reason: string;
  /** The runs it had, the failed one included. */
  attempts: number;
  /** When it was dead-lettered, in milliseconds since the epoch. */
  at: number;
}

/**
 * What `queueConsumer` sends to its dead-letter queue: the message as it came, with `failure`;
 * a message that was not an object is kept under `original`.
 */
export type DeadLetterMessage = (QueueMessageBody | { deliveryId: null; original: unknown }) & {
  failure: DeadLetterFailure;
};

const MAX_REASON = 1000;

/**
 * The dead letter for a message: the message as it came, with `failure` added (a message that
 * was not an object is kept under `original`). A delivery whose message would no longer fit
 * with the reason added moves its body to R2 first, so the dead letter is never refused for size.
 */
export async function deadLetterMessage(
  body: unknown,
  failure: Omit<DeadLetterFailure, 'at'>,
  bucket: R2BucketLike,
): Promise<DeadLetterMessage> {
  const reason = failure.reason.length > MAX_REASON ? `${failure.reason.slice(0, MAX_REASON - 1)}…` : failure.reason;
  const stamped: DeadLetterFailure = { reason, attempts: failure.attempts, at: Date.now() };
  const letter = (
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? { ...body, failure: stamped }
      : { deliveryId: null, original: body, failure: stamped }
  ) as DeadLetterMessage;
  if ('body' in letter && typeof letter.body === 'string' && messageBytes(letter) > QUEUE_MESSAGE_MAX_BYTES) {
    return await toMessage(letter as QueuedDelivery & { failure: DeadLetterFailure }, bucket);
  }
  return letter;
}

/** The cause of a failure in words: a WebhookError's code and reason (its message is the public answer). */
export function reasonOf(error: unknown): string {
  const cause = isJobFailure(error) ? error.cause : error;
  if (isWebhookError(cause)) return `${cause.code}: ${cause.reason}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Sends a message to the dead-letter queue with its reason and acknowledges it; without a
 * dead-letter queue, or when the send fails, retries it, leaving it to the queue's `max_retries`.
 */
export async function sendDeadLetter(
  message: QueueMessageLike<unknown>,
  to: { deadLetter?: QueueProducerLike<unknown>; bodies: R2BucketLike; report: (text: string) => void },
  { body, reason, attempts }: { body: unknown; reason: string; attempts: number },
): Promise<void> {
  if (!to.deadLetter) {
    message.retry();
    return;
  }
  try {
    await to.deadLetter.send(await deadLetterMessage(body, { reason, attempts }, to.bodies), { contentType: 'json' });
    message.ack();
  } catch (error) {
    to.report(`could not send a message to the dead-letter queue, left to the queue's retries: ${String(error)}`);
    message.retry();
  }
}
