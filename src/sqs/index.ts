/**
 * Queue mode on Amazon SQS, standard or FIFO, with S3 for bodies too large for a message:
 * `sqsQueue` for `createReceiver({ queue })`, `sqsSource` for `startWorker` in a long-running
 * process, `sqsHandler` for an SQS-triggered Lambda (partial batch failures). Dead letters go
 * to the queue's redrive target with their reason; `npx webhook-cms-receiver replay --engine sqs`
 * lists and re-sends them. `@aws-sdk/client-sqs` and `@aws-sdk/client-s3` are optional peer
 * dependencies of this entry only.
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { S3Client } from '@aws-sdk/client-s3';
 * import { sqsQueue, sqsHandler } from 'webhook-cms-receiver/sqs';
 * const sqs = { client: new SQSClient({}), queueUrl: process.env.QUEUE_URL! };
 * const bodies = { client: new S3Client({}), bucket: process.env.BODIES_BUCKET! };
 * const receiver = createReceiver({ token, queue: sqsQueue({ ...sqs, bodies }), dedup });
 * export const worker = sqsHandler({ handlers, ...sqs, bodies, dedup });
 * ```
 * @module webhook-cms-receiver/sqs
 */
export { sqsQueue, type SqsQueueOptions, SQS_ENVELOPE_RESERVE_BYTES } from './queue.js';
export { sqsSource, type SqsSourceOptions } from './source.js';
export {
  sqsHandler,
  type SqsHandlerOptions,
  type SqsEventLike,
  type SqsRecordLike,
  type SqsBatchResponse,
} from './handler.js';
export type { SqsJob } from './consume.js';
export type { SqsBodies } from './bodies.js';
export type { SqsClientLike, S3ClientLike } from './clients.js';
export {
  SQS_MESSAGE_MAX_BYTES,
  ENVELOPE_ATTRIBUTE,
  FAILURE_ATTRIBUTE,
  type SqsEnvelope,
  type SqsBodyReference,
  type SqsDeadLetterFailure,
} from './message.js';
