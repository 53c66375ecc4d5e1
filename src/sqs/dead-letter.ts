import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { isJobFailure, isWebhookError } from 'webhook-cms-receiver';
import { putBody, type SqsBodies } from './bodies.js';
import { copyDeduplicationId, isFifoQueue } from './fifo.js';
import {
  ENVELOPE_ATTRIBUTE,
  FAILURE_ATTRIBUTE,
  messageBytes,
  readEnvelope,
  SQS_MESSAGE_MAX_BYTES,
  type SqsDeadLetterFailure,
  sqsJson,
} from './message.js';

/** What a consumer learns of its queue at start: where dead letters go, and its visibility timeout. */
export interface QueueSetup {
  deadLetterQueueUrl: string;
  /** The redrive policy's `maxReceiveCount`; undefined when `deadLetterQueueUrl` was given instead. */
  maxReceiveCount: number | undefined;
  visibilityTimeoutSeconds: number;
}

/**
 * Reads the queue's `RedrivePolicy` and `VisibilityTimeout` (one `GetQueueAttributes`, and a
 * `GetQueueUrl` for the dead-letter queue). Throws with the fix when the queue has no redrive
 * policy and no `deadLetterQueueUrl` was given: without one, a message out of retries would
 * have nowhere to go but around again.
 */
export async function queueSetup(
  client: SQSClient,
  queueUrl: string,
  given: { deadLetterQueueUrl?: string; call: string },
): Promise<QueueSetup> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy', 'VisibilityTimeout'] }),
  );
  const visibilityTimeoutSeconds = Number(Attributes.VisibilityTimeout ?? 30);
  let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown } = {};
  try {
    policy = Attributes.RedrivePolicy ? JSON.parse(Attributes.RedrivePolicy) : {};
  } catch {
    // An unreadable policy is reported as a missing one below.
  }
  const maxReceiveCount = policy.maxReceiveCount === undefined ? undefined : Number(policy.maxReceiveCount);
  if (given.deadLetterQueueUrl) {
    return { deadLetterQueueUrl: given.deadLetterQueueUrl, maxReceiveCount, visibilityTimeoutSeconds };
  }
  const arn = typeof policy.deadLetterTargetArn === 'string' ? policy.deadLetterTargetArn.split(':') : [];
  if (arn.length < 6) {
    throw new Error(
      `${given.call}: the queue ${queueUrl} has no redrive policy, so a delivery out of retries has no dead-letter ` +
        'queue: set RedrivePolicy {"deadLetterTargetArn": "<the DLQ ARN>", "maxReceiveCount": <retry.attempts + 10>} ' +
        'on the queue (RedrivePolicy in template.yaml), or pass deadLetterQueueUrl.',
    );
  }
  const { QueueUrl } = await client.send(
    new GetQueueUrlCommand({ QueueName: arn[5], QueueOwnerAWSAccountId: arn[4] || undefined }),
  );
  return { deadLetterQueueUrl: QueueUrl!, maxReceiveCount, visibilityTimeoutSeconds };
}

const MAX_REASON = 1000;

/** The cause of a failure in words: a WebhookError's code and reason (its message is the public answer). */
export function reasonOf(error: unknown): string {
  const cause = isJobFailure(error) ? error.cause : error;
  if (isWebhookError(cause)) return `${cause.code}: ${cause.reason}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** A received message as the dead-letter step needs it. */
export interface DeadLetterSource {
  messageId: string;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  groupId?: string;
}

/**
 * Sends a copy of the message to the dead-letter queue with its reason in the
 * `webhook-failure` attribute (SQS's own redrive moves a message without one). A copy that
 * would no longer fit with the reason has its body moved to S3 first, when `bodies` is given.
 * Resolves once the copy is on the dead-letter queue; rejects when SQS refused it.
 */
export async function sendDeadLetter(
  client: SQSClient,
  deadLetterQueueUrl: string,
  message: DeadLetterSource,
  failure: Omit<SqsDeadLetterFailure, 'at'>,
  bodies: SqsBodies | undefined,
): Promise<void> {
  const reason = failure.reason.length > MAX_REASON ? `${failure.reason.slice(0, MAX_REASON - 1)}…` : failure.reason;
  const stamped: SqsDeadLetterFailure = { reason, attempts: failure.attempts, at: Date.now() };
  let body = message.body;
  const attributes: Record<string, MessageAttributeValue> = { ...message.attributes };
  attributes[FAILURE_ATTRIBUTE] = { DataType: 'String', StringValue: sqsJson(stamped) };
  const envelope = readEnvelope(attributes[ENVELOPE_ATTRIBUTE]?.StringValue);
  const sized = Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      { DataType: value.DataType ?? 'String', StringValue: value.StringValue ?? '' },
    ]),
  );
  if (bodies && envelope && !envelope.bodyRef && messageBytes(body, sized) > SQS_MESSAGE_MAX_BYTES) {
    const bodyRef = await putBody(bodies, envelope.deliveryId ?? null, body);
    attributes[ENVELOPE_ATTRIBUTE] = { DataType: 'String', StringValue: sqsJson({ ...envelope, bodyRef }) };
    body = `s3://${bodyRef.bucket}/${bodyRef.key}`;
  }
  await client.send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: body,
      MessageAttributes: attributes,
      ...(isFifoQueue(deadLetterQueueUrl)
        ? {
            MessageGroupId: message.groupId ?? 'dead-letters',
            MessageDeduplicationId: copyDeduplicationId('dead', message.messageId),
          }
        : {}),
    }),
  );
}
