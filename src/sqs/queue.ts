import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { DEFAULT_MAX_BODY_BYTES, type DeliveryQueue, type QueuedDelivery, withQueueMode } from 'webhook-cms-receiver';
import { bodiesOption, putBody, type SqsBodies } from './bodies.js';
import { type SqsClientLike, sqsClient } from './clients.js';
import { fifoFields, isFifoQueue } from './fifo.js';
import {
  articleIdOf,
  attributesOf,
  envelopeOf,
  messageBytes,
  refusedBySqs,
  SQS_MESSAGE_MAX_BYTES,
  sqsJson,
} from './message.js';

/**
 * What a delivery's envelope (its `webhook` attribute) may take of a message when `sqsQueue`
 * checks, without `bodies`, that every body up to `maxBodyBytes` fits: 2048 bytes, room for
 * delivery and tenant ids of several hundred characters and a trace context. The send itself
 * counts each message exactly.
 */
export const SQS_ENVELOPE_RESERVE_BYTES = 2048;

/** The largest message SQS takes from a queue set to its maximum: 1 MiB. */
const SQS_LIMIT = 1_048_576;

/** Options of {@link sqsQueue}. */
export interface SqsQueueOptions {
  /** An `SQSClient` from `@aws-sdk/client-sqs`. */
  client: SqsClientLike;
  /** The queue's URL; a name ending in `.fifo` makes FIFO messages (group = article, deduplication id = delivery id). */
  queueUrl: string;
  /**
   * The S3 bucket for bodies whose message would pass `maxMessageBytes` (the receiver takes
   * bodies up to 10 MiB): the message then holds the object's key, size and SHA-256, checked
   * when read, and the object is deleted when the delivery completes. Without it,
   * `maxBodyBytes` must fit a message.
   */
  bodies?: SqsBodies;
  /**
   * The receiver's `maxBodyBytes` (default 10 MiB): without `bodies`, `sqsQueue` throws unless
   * a body this large fits a message with its envelope. Give the same value to `createReceiver`.
   */
  maxBodyBytes?: number;
  /**
   * The largest message to send, as SQS counts it (body and attributes): default
   * {@link SQS_MESSAGE_MAX_BYTES} (256 KiB). Raise it (up to 1 MiB) only for a queue whose
   * `MaximumMessageSize` is raised too.
   */
  maxMessageBytes?: number;
}

/**
 * The producer for `createReceiver({ queue })` on Amazon SQS, standard or FIFO. Each verified
 * delivery is one message: its raw body as the message body, the rest (delivery id,
 * timestamp, event, `tokenIndex`, tenant, time received) in the `webhook` message attribute.
 * A message that would pass `maxMessageBytes` has its body written to S3 (`bodies`) first.
 *
 * On a FIFO queue the message group is the article, so each article's deliveries run in
 * order, and the deduplication id the delivery id (tenant-scoped in tenant mode; hashed only
 * past SQS's 128 characters). SQS keeps deduplication ids for 5 minutes and a standard queue
 * none, so give the receiver a `dedup` store as well: it answers a redelivery `duplicate`
 * for as long as the service retries.
 *
 * `stats()` reads `ApproximateNumberOfMessages` and `…Delayed` (one `GetQueueAttributes`);
 * SQS cannot tell the oldest message's age outside CloudWatch, so `oldestAgeSeconds` is undefined.
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { S3Client } from '@aws-sdk/client-s3';
 * import { sqsQueue } from 'webhook-cms-receiver/sqs';
 * const receiver = createReceiver({
 *   token: process.env.WEBHOOK_TOKEN!,
 *   queue: sqsQueue({
 *     client: new SQSClient({}),
 *     queueUrl: process.env.QUEUE_URL!,
 *     bodies: { client: new S3Client({}), bucket: process.env.BODIES_BUCKET! },
 *   }),
 *   dedup: dynamoDbDedupStore(dynamo, { table: 'webhook-dedup' }),
 * });
 * ```
 */
export function sqsQueue(options: SqsQueueOptions): DeliveryQueue {
  const { client: given, queueUrl } = options ?? ({} as SqsQueueOptions);
  if (typeof given?.send !== 'function' || typeof queueUrl !== 'string' || queueUrl === '') {
    throw new TypeError(
      "sqsQueue needs { client, queueUrl }: sqsQueue({ client: new SQSClient({}), queueUrl: 'https://sqs.…/webhooks' })",
    );
  }
  const client = sqsClient(given);
  const bodies = bodiesOption(options.bodies, 'sqsQueue');
  const maxMessageBytes = options.maxMessageBytes ?? SQS_MESSAGE_MAX_BYTES;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024 || maxMessageBytes > SQS_LIMIT) {
    throw new RangeError(
      `sqsQueue: maxMessageBytes must be an integer from 1024 to ${SQS_LIMIT} (SQS's range of MaximumMessageSize), got ${String(options.maxMessageBytes)}.`,
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const fits = maxMessageBytes - SQS_ENVELOPE_RESERVE_BYTES;
  if (!bodies && maxBodyBytes > fits) {
    throw new RangeError(
      `sqsQueue: maxBodyBytes is ${maxBodyBytes} bytes, but an SQS message of ${maxMessageBytes} bytes holds a body ` +
        `of at most ${fits} with its envelope: give bodies: { client: new S3Client({}), bucket } for larger bodies, ` +
        `or maxBodyBytes: ${fits} here and to createReceiver.`,
    );
  }
  const fifo = isFifoQueue(queueUrl);
  return withQueueMode({
    async enqueue(delivery, { signal }) {
      const message = await messageFor(delivery, { bodies, maxMessageBytes, fifo });
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: message.body,
          MessageAttributes: message.attributes,
          ...(fifo ? await fifoFields(delivery, message.articleId) : {}),
        }),
        { abortSignal: signal },
      );
    },
    async stats() {
      const { Attributes = {} } = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      const depth =
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
      return { depth, oldestAgeSeconds: undefined };
    },
  });
}

/** The message for a delivery: its body inline when the message fits, else in S3 with a reference. */
async function messageFor(
  delivery: QueuedDelivery,
  { bodies, maxMessageBytes, fifo }: { bodies: SqsBodies | undefined; maxMessageBytes: number; fifo: boolean },
) {
  const articleId = fifo ? articleIdOf(delivery) : undefined;
  const attributes = attributesOf(sqsJson(envelopeOf(delivery)));
  // A body longer than the limit in UTF-16 units is over it in bytes: 10 MiB is not encoded to learn that.
  const inline =
    delivery.body.length <= maxMessageBytes &&
    messageBytes(delivery.body, attributes) <= maxMessageBytes &&
    !refusedBySqs(delivery.body);
  if (inline) return { body: delivery.body, attributes, articleId };
  if (!bodies) {
    throw new Error(
      `sqsQueue: delivery ${delivery.deliveryId ?? '(no id)'} does not fit an SQS message of ${maxMessageBytes} ` +
        'bytes (or holds U+FFFE/U+FFFF, which SQS refuses): give sqsQueue bodies: { client: new S3Client({}), bucket }',
    );
  }
  const bodyRef = await putBody(bodies, delivery.deliveryId, delivery.body);
  const id = articleId ?? articleIdOf(delivery);
  const envelope = envelopeOf(delivery, id === undefined ? { bodyRef } : { bodyRef, articleId: id });
  return { body: `s3://${bodyRef.bucket}/${bodyRef.key}`, attributes: attributesOf(sqsJson(envelope)), articleId };
}
