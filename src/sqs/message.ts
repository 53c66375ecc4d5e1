import type { QueuedDelivery } from 'webhook-cms-receiver';

/**
 * The largest SQS message `sqsQueue` sends, in bytes as SQS counts them (the message body's
 * UTF-8 bytes plus, for each message attribute, its name, data type and value): 262 144
 * (256 KiB). SQS queues created before August 2025 refuse more, and a queue's
 * `MaximumMessageSize` may be set lower; give `maxMessageBytes` to use a larger one.
 *
 * @example
 * ```ts
 * sqsQueue({ client, queueUrl, bodies, maxMessageBytes: SQS_MESSAGE_MAX_BYTES });
 * ```
 */
export const SQS_MESSAGE_MAX_BYTES = 262_144;

/** The message attribute holding the delivery's envelope (JSON of {@link SqsEnvelope}). */
export const ENVELOPE_ATTRIBUTE = 'webhook';

/** The message attribute a dead letter carries its reason in (JSON of {@link SqsDeadLetterFailure}). */
export const FAILURE_ATTRIBUTE = 'webhook-failure';

const STRING = 'String';

/** Where a body too large for its message is in S3, and how to know it is the same one. */
export interface SqsBodyReference {
  bucket: string;
  key: string;
  /** The body's size in UTF-8 bytes. */
  bytes: number;
  /** SHA-256 of the body's UTF-8 bytes, hex. */
  sha256: string;
}

/**
 * What a message carries besides its body, in the `webhook` message attribute: every field of
 * `QueuedDelivery` but `body`, the S3 reference when the body went there, and the article's id
 * of an article event (what a copy that arrives after its body was deleted asks the store about).
 */
export type SqsEnvelope = Omit<QueuedDelivery, 'body'> & {
  bodyRef?: SqsBodyReference;
  articleId?: string;
  /** A copy put back because another worker held its claim: the attempts used before it, and its deferrals. */
  deferred?: { attempts: number; deferrals: number };
};

/** Why a message was dead-lettered, in its `webhook-failure` attribute. */
export interface SqsDeadLetterFailure {
  /** The last error's message (at most 1000 characters), or why the body could not be read. */
  reason: string;
  /** The runs it had, the failed one included. */
  attempts: number;
  /** When it was dead-lettered, in milliseconds since the epoch. */
  at: number;
}

/** A message attribute as SQS's API takes and gives it. */
export interface StringAttribute {
  DataType: string;
  StringValue?: string;
}

// SQS takes #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
const REFUSED = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NON_CHARACTER = /[\uFFFE\uFFFF]/g;

/** True when SQS would refuse this text in a message body or attribute. */
export function refusedBySqs(text: string): boolean {
  return REFUSED.test(text);
}

/**
 * JSON that SQS takes: `JSON.stringify` escapes control characters and lone surrogates, but
 * leaves U+FFFE and U+FFFF, which SQS refuses; they can only be inside strings, so escaping
 * them keeps the value.
 */
export function sqsJson(value: unknown): string {
  return JSON.stringify(value).replace(NON_CHARACTER, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string, without encoding it when it is plainly ASCII-sized. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The attributes of a message: the envelope, and a dead letter's failure. */
export function attributesOf(envelope: string, failure?: string): Record<string, StringAttribute> {
  const attributes: Record<string, StringAttribute> = {
    [ENVELOPE_ATTRIBUTE]: { DataType: STRING, StringValue: envelope },
  };
  if (failure !== undefined) attributes[FAILURE_ATTRIBUTE] = { DataType: STRING, StringValue: failure };
  return attributes;
}

/** A message's size as SQS counts it: the body's UTF-8 bytes, and each attribute's name, type and value. */
export function messageBytes(body: string, attributes: Record<string, StringAttribute>): number {
  let size = utf8Bytes(body);
  for (const [name, attribute] of Object.entries(attributes)) {
    size += utf8Bytes(name) + utf8Bytes(attribute.DataType) + utf8Bytes(attribute.StringValue ?? '');
  }
  return size;
}

/** The envelope of a delivery, with the article's id of an article event when asked. */
export function envelopeOf(delivery: QueuedDelivery, extra: Partial<SqsEnvelope> = {}): SqsEnvelope {
  const { body: _, ...rest } = delivery;
  return { ...rest, ...extra };
}

/** The article's id of an article event, read from the verified body: what FIFO groups and ordered claims key on. */
export function articleIdOf({ event, body }: Pick<QueuedDelivery, 'event' | 'body'>): string | undefined {
  if (event !== 'article.sync' && event !== 'article.trash') return undefined;
  try {
    const id = (JSON.parse(body) as { article?: { id?: unknown } } | null)?.article?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The envelope a message carries, read from its `webhook` attribute; undefined when it has
 * none or it is not one (a message some other producer sent to the queue).
 */
export function readEnvelope(text: string | undefined): SqsEnvelope | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text) as Partial<SqsEnvelope> | null;
    if (typeof value !== 'object' || value === null || typeof value.event !== 'string') return undefined;
    return value as SqsEnvelope;
  } catch {
    return undefined;
  }
}
