import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { describe } from 'vitest';

/** fauxqs (SQS and S3): test/setup/services.ts starts it when SQS_ENDPOINT is unset. */
export const sqsEndpoint = process.env.SQS_ENDPOINT;

/** A describe block that needs fauxqs: skipped, saying why, when SQS_ENDPOINT is unset. */
export const describeWithSqs = (name: string, body: () => void) =>
  sqsEndpoint
    ? describe(name, body)
    : describe.skip(`${name} (skipped: set SQS_ENDPOINT to a fauxqs or SQS endpoint)`, body);

const config = () => ({
  endpoint: sqsEndpoint!,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});

export const sqsClient = () => new SQSClient(config());
export const s3Client = () => new S3Client({ ...config(), forcePathStyle: true });

/** A queue with its dead-letter queue (redrive after `maxReceiveCount` receives), and a bucket. */
export async function freshQueue(
  label: string,
  options: { fifo?: boolean; maxReceiveCount?: number; visibilityTimeout?: number; maxMessageSize?: number } = {},
) {
  const sqs = sqsClient();
  const name = `wcr-${label}-${randomUUID().slice(0, 8)}`;
  const suffix = options.fifo ? '.fifo' : '';
  const fifo = options.fifo ? { FifoQueue: 'true' } : {};
  const dead = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dead${suffix}`, Attributes: fifo }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl!, AttributeNames: ['QueueArn'] }),
  );
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}${suffix}`,
      Attributes: {
        ...fifo,
        VisibilityTimeout: String(options.visibilityTimeout ?? 30),
        MaximumMessageSize: String(options.maxMessageSize ?? 262_144),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes!.QueueArn,
          maxReceiveCount: options.maxReceiveCount ?? 20,
        }),
      },
    }),
  );
  const bucket = `wcr-${label}-${randomUUID().slice(0, 8)}`.toLowerCase();
  const s3 = s3Client();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    sqs,
    s3,
    name,
    queueUrl: queue.QueueUrl!,
    deadUrl: dead.QueueUrl!,
    bucket,
    bodies: { client: s3, bucket },
  };
}

/** Every message now visible on a queue (received with a short visibility timeout, or none, not deleted). */
export async function peek(sqs: SQSClient, queueUrl: string, visibilityTimeout = 5): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: visibilityTimeout,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const fresh = Messages.filter((m) => !all.some((seen) => seen.MessageId === m.MessageId));
    if (fresh.length === 0) return all;
    all.push(...fresh);
  }
}

/** Messages on a queue, visible or not (SQS's approximate counts: exact on fauxqs). */
export async function queueCounts(sqs: SQSClient, queueUrl: string) {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const visible = Number(Attributes.ApproximateNumberOfMessages ?? 0);
  const inflight = Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  const delayed = Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
  return { visible, inflight, delayed, total: visible + inflight + delayed };
}
