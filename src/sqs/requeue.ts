import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { putBody, type SqsBodies } from './bodies.js';
import {
  ENVELOPE_ATTRIBUTE,
  messageBytes,
  SQS_MESSAGE_MAX_BYTES,
  type SqsEnvelope,
  sqsJson,
  type StringAttribute,
} from './message.js';

/** SQS's longest per-message delay: 15 minutes. */
const MAX_DELAY_S = 900;

/**
 * Puts a delivery whose claim another worker holds back on a standard queue as a new message,
 * delayed by `delaySeconds`, carrying the attempts it used and its deferrals in its envelope
 * (`deferred`). SQS counts every receive, and its redrive policy moves a message after
 * `maxReceiveCount` of them; a new message starts again at one, so waiting for a claim costs
 * neither an attempt nor a receive, whichever process receives the copy. A copy that would no
 * longer fit moves its body to S3 first (with `bodies`). Resolves false when it could not be
 * sent (the caller then delays the message itself).
 */
export async function requeueDeferred(
  client: SQSClient,
  queueUrl: string,
  message: { body: string; attributes: Record<string, MessageAttributeValue> },
  envelope: SqsEnvelope,
  counts: { attempts: number; deferrals: number; delaySeconds: number },
  bodies: SqsBodies | undefined,
): Promise<boolean> {
  let body = message.body;
  let next: SqsEnvelope = { ...envelope, deferred: { attempts: counts.attempts, deferrals: counts.deferrals } };
  const attributes = (value: SqsEnvelope): Record<string, StringAttribute> => ({
    ...(message.attributes as Record<string, StringAttribute>),
    [ENVELOPE_ATTRIBUTE]: { DataType: 'String', StringValue: sqsJson(value) },
  });
  if (messageBytes(body, attributes(next)) > SQS_MESSAGE_MAX_BYTES) {
    if (!bodies || next.bodyRef) return false;
    const bodyRef = await putBody(bodies, envelope.deliveryId ?? null, body);
    next = { ...next, bodyRef };
    body = `s3://${bodyRef.bucket}/${bodyRef.key}`;
  }
  await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: attributes(next),
      DelaySeconds: Math.min(Math.max(0, counts.delaySeconds), MAX_DELAY_S),
    }),
  );
  return true;
}
