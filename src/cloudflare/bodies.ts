import type { QueuedDelivery } from 'webhook-cms-receiver';

/**
 * The largest queue message, in bytes of its JSON, that `cloudflareQueue` sends with the body
 * inline: 127 000. Cloudflare Queues take 128 KB (128 000 bytes) a message, of which up to
 * about 100 bytes are the platform's own metadata; the rest is margin. A delivery whose message
 * would be larger (the receiver takes bodies up to 10 MiB) goes to R2, the message holding a
 * reference.
 *
 * @example
 * ```ts
 * if (JSON.stringify(message).length > QUEUE_MESSAGE_MAX_BYTES) console.log('sent by reference');
 * ```
 */
export const QUEUE_MESSAGE_MAX_BYTES = 127_000;

/**
 * What `cloudflareQueue` and `queueConsumer` need of an R2 bucket binding (`env.WEBHOOK_BODIES`),
 * typed here so the package needs no `@cloudflare/workers-types`; an `R2Bucket` fits it.
 *
 * @example
 * ```ts
 * const bodies: R2BucketLike = env.WEBHOOK_BODIES;
 * ```
 */
export interface R2BucketLike {
  put(key: string, value: string, options?: { customMetadata?: Record<string, string> }): Promise<unknown>;
  get(key: string): Promise<{ text(): Promise<string> } | null>;
  delete(key: string): Promise<void>;
}

/** Where a body that did not fit its message is, and how to know it is the same one. */
export interface BodyReference {
  /** The object's key in the R2 bucket. */
  key: string;
  /** The body's size in UTF-8 bytes. */
  bytes: number;
  /** SHA-256 of the body's UTF-8 bytes, hex. */
  sha256: string;
}

/**
 * A delivery whose body is in R2: every field of `QueuedDelivery` but `body`, and the
 * reference. `articleId` (article events) lets a copy of the message that arrives after its
 * body was deleted ask the dedup store whether the delivery completed, ordering included.
 */
export type OutOfLineDelivery = Omit<QueuedDelivery, 'body'> & { bodyRef: BodyReference; articleId?: string };

/**
 * What `cloudflareQueue` puts on the queue: the delivery itself when it fits
 * {@link QUEUE_MESSAGE_MAX_BYTES}, or a reference to its body in R2.
 */
export type QueueMessageBody = QueuedDelivery | OutOfLineDelivery;

/** Why the out-of-line body could not be read back: a retry cannot help. */
export class BodyGone extends Error {
  override readonly name = 'BodyGone';
  /** True when the object is missing (deleted on completion, or expired), false when it is altered. */
  readonly missing: boolean;

  constructor(message: string, missing: boolean) {
    super(message);
    this.missing = missing;
  }
}

const encoder = new TextEncoder();

/** The message's size as the queue counts it: the UTF-8 bytes of its JSON. */
export function messageBytes(message: unknown): number {
  const json = JSON.stringify(message);
  // Every UTF-16 unit is at least one UTF-8 byte: a long string is over without encoding it.
  return json.length > QUEUE_MESSAGE_MAX_BYTES ? json.length : encoder.encode(json).byteLength;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The message for a delivery: itself when small enough, else a reference to its body, written to R2 first. */
export async function toMessage<M extends QueuedDelivery>(
  delivery: M,
  bucket: R2BucketLike,
): Promise<M | (Omit<M, 'body'> & { bodyRef: BodyReference })> {
  // A body longer than the limit in UTF-16 units is over it in bytes: 10 MiB is not escaped to learn that.
  if (delivery.body.length <= QUEUE_MESSAGE_MAX_BYTES && messageBytes(delivery) <= QUEUE_MESSAGE_MAX_BYTES) {
    return delivery;
  }
  const { body, ...rest } = delivery;
  const bytes = encoder.encode(body);
  // Unique per enqueue: deleting one message's copy never takes another message's body.
  const key = `webhook-bodies/${encodeURIComponent(delivery.deliveryId ?? 'no-id')}/${crypto.randomUUID()}`;
  const bodyRef: BodyReference = { key, bytes: bytes.byteLength, sha256: await sha256(bytes) };
  await bucket.put(key, body, { customMetadata: { deliveryId: delivery.deliveryId ?? '', sha256: bodyRef.sha256 } });
  const articleId = articleIdOf(delivery);
  return articleId === undefined ? { ...rest, bodyRef } : { ...rest, bodyRef, articleId };
}

/** The article's id of an article event, read from the verified body: what an ordered claim keys on. */
function articleIdOf({ event, body }: QueuedDelivery): string | undefined {
  if (event !== 'article.sync' && event !== 'article.trash') return undefined;
  try {
    const id = (JSON.parse(body) as { article?: { id?: unknown } } | null)?.article?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The reference of a message whose body is in R2; undefined for any other message. */
export function referenceOf(message: unknown): BodyReference | undefined {
  const ref = (message as { bodyRef?: Partial<BodyReference> } | null)?.bodyRef;
  return typeof ref?.key === 'string' ? (ref as BodyReference) : undefined;
}

/**
 * The delivery a message holds, its body read back from R2 when it went there. Throws
 * {@link BodyGone} when the object is missing or not the body the message refers to; any
 * other throw is R2's, worth a retry. Anything else passes through for the worker to refuse.
 */
export async function fromMessage(message: unknown, bucket: R2BucketLike): Promise<QueuedDelivery> {
  const ref = referenceOf(message);
  if (!ref) return message as QueuedDelivery;
  const { bodyRef: _, articleId: __, ...rest } = message as OutOfLineDelivery;
  const object = await bucket.get(ref.key);
  if (!object) {
    throw new BodyGone(
      `its body is no longer in the R2 bucket (key ${ref.key}): deleted when an earlier run of this message ` +
        'completed, or expired by the bucket lifecycle rule',
      true,
    );
  }
  const body = await object.text();
  const bytes = encoder.encode(body);
  if (bytes.byteLength !== ref.bytes || (await sha256(bytes)) !== ref.sha256) {
    throw new BodyGone(
      `the R2 object ${ref.key} is not the body the message refers to (size or SHA-256 differ)`,
      false,
    );
  }
  return { ...rest, body };
}
