import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import {
  DEFAULT_HANDLER_TIMEOUT_MS,
  type HandlerContext,
  type JobResult,
  type JobSource,
  retryDelayMs,
  type SourceJob,
  startWorker,
  type WorkerOptions,
} from 'webhook-cms-receiver';
import { bodiesOption, type SqsBodies } from './bodies.js';
import { type SqsClientLike, sqsClient } from './clients.js';
import { type Consumer, consume, type ReceivedMessage, type SqsJob } from './consume.js';
import { queueSetup } from './dead-letter.js';
import { warnOnReceiveCount } from './source.js';

/**
 * One record of an SQS-triggered Lambda's event, as AWS sends it (the `SQSRecord` of
 * `@types/aws-lambda`, which fits this shape).
 */
export interface SqsRecordLike {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { ApproximateReceiveCount?: string; MessageGroupId?: string } & Record<string, string | undefined>;
  messageAttributes?: Record<string, { stringValue?: string; dataType: string } | undefined>;
}

/** An SQS-triggered Lambda's event (`SQSEvent`). */
export interface SqsEventLike {
  Records: readonly SqsRecordLike[];
}

/** What the Lambda answers: the messages to leave on the queue (`ReportBatchItemFailures`). */
export interface SqsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** Options of {@link sqsHandler}: those of `startWorker`, plus the queue and the S3 bucket. */
export interface SqsHandlerOptions<C extends HandlerContext = HandlerContext> extends WorkerOptions<SqsJob, C> {
  /** An `SQSClient`: the handler changes visibility, deletes, and sends dead letters with it. */
  client: SqsClientLike;
  /** The URL of the queue that triggers the function (the event source). */
  queueUrl: string;
  /** The S3 bucket `sqsQueue` writes large bodies to (the same `{ client, bucket }`). */
  bodies?: SqsBodies;
  /** The dead-letter queue. Default the queue's redrive policy's `deadLetterTargetArn`. */
  deadLetterQueueUrl?: string;
}

/**
 * The handler of an SQS-triggered Lambda: runs each record's delivery through the same worker
 * as `startWorker` (typed event, `signal`, dedup, ordering, `context.job` = the message) and
 * answers `{ batchItemFailures }`, so one failing delivery does not run its batch again. Enable
 * `ReportBatchItemFailures` on the event source mapping (`FunctionResponseTypes` in
 * template.yaml). A retry or a held claim is delayed with `ChangeMessageVisibility` and
 * reported as a failure; a delivery out of attempts goes to the dead-letter queue with its
 * reason. On a FIFO queue the records of one article run in order, and those after a failure
 * are left for the next batch, so the order holds.
 *
 * Keep `handlerTimeoutMs` under the function's timeout (at most 15 minutes), and the queue's
 * `VisibilityTimeout` at least six times the function's timeout, as AWS advises.
 *
 * @example
 * ```ts
 * export const handler = sqsHandler({
 *   handlers: { 'article.sync': ({ article }) => publish(article) },
 *   client: new SQSClient({}),
 *   queueUrl: process.env.QUEUE_URL!,
 *   bodies: { client: new S3Client({}), bucket: process.env.BODIES_BUCKET! },
 *   dedup: dynamoDbDedupStore(dynamo, { table: process.env.DEDUP_TABLE! }),
 * });
 * ```
 */
export function sqsHandler<C extends HandlerContext = HandlerContext>(
  options: SqsHandlerOptions<C>,
): (event: SqsEventLike, context?: unknown) => Promise<SqsBatchResponse> {
  const { client, queueUrl } = options ?? ({} as SqsHandlerOptions<C>);
  if (typeof client?.send !== 'function' || typeof queueUrl !== 'string' || queueUrl === '') {
    throw new TypeError(
      'sqsHandler needs { handlers, client, queueUrl }: sqsHandler({ handlers, client: new SQSClient({}), queueUrl: process.env.QUEUE_URL! })',
    );
  }
  const bodies = bodiesOption(options.bodies, 'sqsHandler');
  let consumer: Promise<Consumer> | undefined;
  const ready = (): Promise<Consumer> => {
    consumer ??= consumerFor(options, bodies);
    // A failed start (SQS unreachable, no redrive policy) is tried again with the next batch.
    consumer.catch(() => {
      consumer = undefined;
    });
    return consumer;
  };
  let timeChecked = false;
  return async (event, context) => {
    const started = await ready();
    if (!timeChecked) {
      timeChecked = true;
      const logger = options.logger === undefined ? console : options.logger;
      if (logger)
        checkFunctionTimeout(options, context, (text) =>
          (logger.warn as (text: string) => unknown)(`sqsHandler: ${text}`),
        );
    }
    const failures: string[] = [];
    // Records of one FIFO group run in order, one after another; a standard queue's each on its own, at once.
    const groups = new Map<string, SqsRecordLike[]>();
    for (const record of event?.Records ?? []) {
      const key = record.attributes?.MessageGroupId ?? record.messageId;
      const list = groups.get(key);
      if (list) list.push(record);
      else groups.set(key, [record]);
    }
    await Promise.all(
      [...groups.values()].map(async (records) => {
        for (const [i, record] of records.entries()) {
          const outcome = await consume(received(record), started).catch(() => 'kept' as const);
          if (outcome === 'kept') {
            // The rest of a FIFO group waits for the next batch: running it now would break the order.
            failures.push(...records.slice(i).map((r) => r.messageId));
            return;
          }
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/**
 * Warns once when the function's time left at its first batch is under `handlerTimeoutMs`:
 * Lambda would stop the run before the handler's `signal` aborts it, and the message would
 * come back only after its visibility timeout, with nothing logged as to why.
 */
function checkFunctionTimeout<C extends HandlerContext>(
  options: SqsHandlerOptions<C>,
  context: unknown,
  warn: (text: string) => void,
): void {
  const remaining = (context as { getRemainingTimeInMillis?: () => number } | undefined)?.getRemainingTimeInMillis?.();
  const handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  if (typeof remaining !== 'number' || remaining >= handlerTimeoutMs) return;
  warn(
    `handlerTimeoutMs is ${handlerTimeoutMs} ms but this invocation had ${remaining} ms left: Lambda stops a run at ` +
      "the function's Timeout, before the handler's signal is aborted. Set handlerTimeoutMs under the Timeout, or " +
      'raise the Timeout (at most 900 s; a longer handler belongs in sqsSource on a container).',
  );
}

/** A worker on a source that Lambda pushes batches to, rather than one that pulls. */
async function consumerFor<C extends HandlerContext>(
  options: SqsHandlerOptions<C>,
  bodies: SqsBodies | undefined,
): Promise<Consumer> {
  let given:
    | { run: (job: SourceJob<SqsJob>) => Promise<JobResult>; retry: Parameters<typeof retryDelayMs>[0] }
    | undefined;
  let warn: ((text: string) => void) | undefined;
  const source: JobSource<SqsJob> = {
    start(run, settings) {
      given = { run, retry: settings.retry };
      warn = settings.warn;
    },
    close: async () => {},
  };
  await startWorker(source, options).ready;
  const client = sqsClient(options.client);
  const setup = await queueSetup(client, options.queueUrl, {
    deadLetterQueueUrl: options.deadLetterQueueUrl,
    call: 'sqsHandler',
  });
  warnOnReceiveCount(setup.maxReceiveCount, given!.retry.attempts, warn);
  const logger = options.logger === undefined ? console : options.logger;
  return {
    client,
    queueUrl: options.queueUrl,
    bodies,
    setup,
    run: given!.run,
    dedup: options.dedup || undefined,
    ordering: options.ordering === true,
    attempts: given!.retry.attempts,
    delayMs: (attempt) => retryDelayMs(given!.retry, attempt),
    deferrals: new Map(),
    report: (text) => {
      if (logger) (logger.error as (text: string) => unknown)(`sqsHandler: ${text}`);
    },
  };
}

/** A Lambda event record as the consumer takes it. */
function received(record: SqsRecordLike): ReceivedMessage {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {})) {
    if (value) attributes[name] = { DataType: value.dataType, StringValue: value.stringValue };
  }
  const groupId = record.attributes?.MessageGroupId;
  return {
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    body: record.body,
    attributes,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
    ...(groupId === undefined ? {} : { groupId }),
  };
}
