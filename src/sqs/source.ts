import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type DedupStore, type JobSource, retryDelayMs } from 'webhook-cms-receiver';
import { bodiesOption, type SqsBodies } from './bodies.js';
import { type SqsClientLike, sqsClient } from './clients.js';
import { type Consumer, consume, type ReceivedMessage, type SqsJob } from './consume.js';
import { queueSetup } from './dead-letter.js';

/** Options of {@link sqsSource}. */
export interface SqsSourceOptions {
  /** An `SQSClient` from `@aws-sdk/client-sqs`. */
  client: SqsClientLike;
  /** The queue's URL, as given to `sqsQueue`. */
  queueUrl: string;
  /** The S3 bucket `sqsQueue` writes large bodies to (the same `{ client, bucket }`): read back, checked, deleted when done. */
  bodies?: SqsBodies;
  /**
   * The dead-letter queue to send failed deliveries to, with their reason. Default the queue's
   * redrive policy's `deadLetterTargetArn`: the worker does not start without one of the two.
   */
  deadLetterQueueUrl?: string;
  /** Long polling: how long one `ReceiveMessage` waits for a message, 0 to 20 seconds. Default 20. */
  waitTimeSeconds?: number;
  /**
   * The visibility timeout each receive asks for, extended by a third of it while the handler
   * runs. It is how long a message a killed worker held waits before another worker runs it
   * (that run counts as an attempt). Default the queue's `VisibilityTimeout`.
   */
  visibilityTimeoutSeconds?: number;
  /**
   * The worker's dedup store and `ordering`, given again here so that a copy of a large
   * delivery that SQS delivers after its S3 body was deleted is recognised as done rather
   * than dead-lettered. Optional.
   */
  dedup?: DedupStore | false;
  ordering?: boolean;
}

/**
 * The consumer for `startWorker` in a long-running process (a container, an EC2 instance, ECS):
 * `concurrency` loops each long-poll SQS for one message, run its delivery, and settle it.
 * While a handler runs, its message's visibility is extended; a message whose worker was
 * killed reappears after the visibility timeout and runs again (that run counts as an
 * attempt). A retry is `ChangeMessageVisibility` with the worker's backoff, and so is a
 * delivery whose claim another worker holds, which is not counted as an attempt. A delivery
 * out of attempts, or failing for good, is sent to the dead-letter queue with its reason in
 * the `webhook-failure` message attribute, and its body in S3 is kept for a replay.
 *
 * At start it reads the queue's redrive policy (so `worker.ready` rejects with the fix when the
 * queue has no dead-letter queue) and warns when `maxReceiveCount` does not leave room for
 * the worker's attempts.
 *
 * @example
 * ```ts
 * const worker = startWorker(sqsSource({ client: new SQSClient({}), queueUrl, bodies }), {
 *   handlers: { 'article.sync': ({ article }) => publish(article) },
 *   dedup: dynamoDbDedupStore(dynamo, { table: 'webhook-dedup' }),
 *   concurrency: 4,
 * });
 * ```
 */
export function sqsSource(options: SqsSourceOptions): JobSource<SqsJob> {
  const { client: given, queueUrl } = options ?? ({} as SqsSourceOptions);
  if (typeof given?.send !== 'function' || typeof queueUrl !== 'string' || queueUrl === '') {
    throw new TypeError(
      "sqsSource needs { client, queueUrl }: sqsSource({ client: new SQSClient({}), queueUrl: 'https://sqs.…/webhooks' })",
    );
  }
  const client = sqsClient(given);
  const bodies = bodiesOption(options.bodies, 'sqsSource');
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 0 || waitTimeSeconds > 20) {
    throw new RangeError(`sqsSource: waitTimeSeconds must be an integer from 0 to 20, got ${waitTimeSeconds}.`);
  }
  const stopping = new AbortController();
  const loops: Promise<void>[] = [];
  return {
    async start(run, { concurrency, retry, warn }) {
      const setup = await queueSetup(client, queueUrl, {
        deadLetterQueueUrl: options.deadLetterQueueUrl,
        call: 'sqsSource',
      });
      if (options.visibilityTimeoutSeconds !== undefined)
        setup.visibilityTimeoutSeconds = options.visibilityTimeoutSeconds;
      warnOnReceiveCount(setup.maxReceiveCount, retry.attempts, warn);
      const consumer: Consumer = {
        client,
        queueUrl,
        bodies,
        setup,
        run,
        dedup: options.dedup || undefined,
        ordering: options.ordering === true,
        attempts: retry.attempts,
        delayMs: (attempt) => retryDelayMs(retry, attempt),
        deferrals: new Map(),
        report: (text) => warn?.(`sqsSource: ${text}`),
      };
      const loop = async () => {
        let failures = 0;
        while (!stopping.signal.aborted) {
          let messages: Message[];
          try {
            ({ Messages: messages = [] } = await client.send(
              new ReceiveMessageCommand({
                QueueUrl: queueUrl,
                MaxNumberOfMessages: 1,
                WaitTimeSeconds: waitTimeSeconds,
                VisibilityTimeout: setup.visibilityTimeoutSeconds,
                MessageAttributeNames: ['All'],
                MessageSystemAttributeNames: ['ApproximateReceiveCount', 'MessageGroupId'],
              }),
              { abortSignal: stopping.signal },
            ));
            failures = 0;
          } catch (error) {
            if (stopping.signal.aborted) return;
            failures++;
            warn?.(`sqsSource: could not receive from ${queueUrl}; trying again: ${String(error)}`);
            await pause(Math.min(5000, 250 * 2 ** failures), stopping.signal);
            continue;
          }
          for (const message of messages) await consume(received(message), consumer);
        }
      };
      for (let i = 0; i < concurrency; i++) loops.push(loop());
    },
    async close() {
      stopping.abort();
      await Promise.all(loops.splice(0));
    },
  };
}

/** A message from `ReceiveMessage` as the consumer takes it. */
function received(message: Message): ReceivedMessage {
  const groupId = message.Attributes?.MessageGroupId;
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: message.MessageAttributes ?? {},
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
    ...(groupId === undefined ? {} : { groupId }),
  };
}

/** Warns when the redrive policy would move messages, without their reason, before the worker's last attempt. */
export function warnOnReceiveCount(
  maxReceiveCount: number | undefined,
  attempts: number,
  warn: ((text: string) => void) | undefined,
): void {
  if (maxReceiveCount === undefined || maxReceiveCount > attempts) return;
  warn?.(
    `SQS: the queue's redrive policy has maxReceiveCount ${maxReceiveCount}, not above retry.attempts ${attempts}: ` +
      'SQS moves a message to the dead-letter queue, without its reason, before the worker runs its last attempt. ' +
      `Set maxReceiveCount to at least ${attempts + 10} (room for deferred receives).`,
  );
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
