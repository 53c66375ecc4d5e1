import { type QueuedDelivery, tenantScoped } from 'webhook-cms-receiver';
import { queueJobKey, sha256Hex } from '../queue/ids.js';

/** The longest `MessageDeduplicationId` and `MessageGroupId` SQS takes. */
const FIFO_ID_MAX = 128;
// What SQS takes in those ids: alphanumerics and ASCII punctuation.
const FIFO_ID = /^[\x21-\x7E]+$/;

/** True for a FIFO queue's URL (its name ends in `.fifo`). */
export function isFifoQueue(queueUrl: string): boolean {
  return queueUrl.endsWith('.fifo');
}

/** The id as SQS takes it: itself when it fits, else `sha256:` and the SHA-256 of its UTF-16 units. */
async function fifoId(id: string): Promise<string> {
  return id.length <= FIFO_ID_MAX && FIFO_ID.test(id) ? id : `sha256:${await sha256Hex(id)}`;
}

/**
 * What a FIFO message is sent with: the group is the article (tenant-scoped), so each
 * article's deliveries run in order and different articles in parallel; other events are
 * their own group. The deduplication id is the delivery id as sent (tenant-scoped in tenant
 * mode), so SQS drops a second send within its 5-minute window.
 */
export async function fifoFields(
  delivery: QueuedDelivery,
  articleId: string | undefined,
): Promise<{ MessageGroupId: string; MessageDeduplicationId: string }> {
  const key = queueJobKey(delivery) ?? crypto.randomUUID();
  const group = articleId === undefined ? key : tenantScoped(delivery.tenant, `article:${articleId}`);
  return { MessageGroupId: await fifoId(group), MessageDeduplicationId: await fifoId(key) };
}

/** A FIFO copy's deduplication id, made from the message it copies (a dead letter, a replay). */
export function copyDeduplicationId(kind: 'dead' | 'replay', messageId: string): string {
  return `${kind}-${messageId}-${Date.now()}`.slice(0, FIFO_ID_MAX);
}
