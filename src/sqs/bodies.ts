import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { type S3ClientLike, s3Client } from './clients.js';
import type { SqsBodyReference } from './message.js';

/**
 * Where bodies too large for an SQS message go: an S3 bucket. The same value goes to
 * `sqsQueue`, `sqsSource` and `sqsHandler`. Give the bucket a lifecycle rule that expires
 * objects under `prefix` after some days: a completed delivery's object is deleted at once, a
 * dead letter's is kept for a replay until the rule expires it.
 *
 * @example
 * ```ts
 * const bodies: SqsBodies = { client: new S3Client({}), bucket: 'webhook-bodies' };
 * ```
 */
export interface SqsBodies {
  /** An `S3Client` from `@aws-sdk/client-s3`. */
  client: S3ClientLike;
  bucket: string;
  /** Key prefix of the objects. Default `webhook-bodies/`. */
  prefix?: string;
}

/** Why a body in S3 could not be read back: a retry cannot help. */
export class BodyGone extends Error {
  override readonly name = 'BodyGone';
  /** True when the object is missing (deleted when its delivery completed, or expired), false when it is altered. */
  readonly missing: boolean;

  constructor(message: string, missing: boolean) {
    super(message);
    this.missing = missing;
  }
}

const encoder = new TextEncoder();

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Checks the `bodies` option where an entry is built, so a mistake shows before the first large delivery. */
export function bodiesOption(bodies: SqsBodies | undefined, call: string): SqsBodies | undefined {
  if (bodies === undefined) return undefined;
  if (typeof bodies?.client?.send !== 'function' || typeof bodies.bucket !== 'string' || bodies.bucket === '') {
    throw new TypeError(
      `${call}: bodies must be { client: new S3Client({}), bucket: 'your-bucket' } (an S3Client from ` +
        `@aws-sdk/client-s3 and a bucket name); got ${bodies === null ? 'null' : typeof bodies}.`,
    );
  }
  return bodies;
}

/** Writes a body to S3 under a key unique to this enqueue (deleting one message's copy never takes another's). */
export async function putBody(bodies: SqsBodies, deliveryId: string | null, body: string): Promise<SqsBodyReference> {
  const bytes = encoder.encode(body);
  const key = `${bodies.prefix ?? 'webhook-bodies/'}${encodeURIComponent(deliveryId ?? 'no-id')}/${crypto.randomUUID()}`;
  const ref: SqsBodyReference = { bucket: bodies.bucket, key, bytes: bytes.byteLength, sha256: await sha256(bytes) };
  await s3Client(bodies.client).send(
    new PutObjectCommand({
      Bucket: bodies.bucket,
      Key: key,
      Body: bytes,
      ContentType: 'application/json; charset=utf-8',
      Metadata: { 'delivery-id': encodeURIComponent(deliveryId ?? ''), sha256: ref.sha256 },
    }),
  );
  return ref;
}

/**
 * The body a reference names, checked against its size and SHA-256. Throws {@link BodyGone}
 * when the object is missing or not that body; any other throw is S3's, worth a retry.
 */
export async function getBody(bodies: SqsBodies | undefined, ref: SqsBodyReference): Promise<string> {
  if (!bodies) {
    throw new BodyGone(
      `its body is in S3 (s3://${ref.bucket}/${ref.key}) but this worker has no bodies option: give it ` +
        'the same { client, bucket } as sqsQueue',
      false,
    );
  }
  let bytes: Uint8Array;
  try {
    const object = await s3Client(bodies.client).send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    bytes = (await object.Body?.transformToByteArray()) ?? new Uint8Array();
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'NoSuchKey' || name === 'NotFound') {
      throw new BodyGone(
        `its body is no longer in S3 (s3://${ref.bucket}/${ref.key}): deleted when an earlier run of this ` +
          'message completed, or expired by the bucket lifecycle rule',
        true,
      );
    }
    throw error;
  }
  if (bytes.byteLength !== ref.bytes || (await sha256(bytes)) !== ref.sha256) {
    throw new BodyGone(
      `the S3 object s3://${ref.bucket}/${ref.key} is not the body the message refers to (size or SHA-256 differ)`,
      false,
    );
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** Deletes a completed delivery's body; a failure leaves it to the lifecycle rule and is only reported. */
export async function deleteBody(
  bodies: SqsBodies | undefined,
  ref: SqsBodyReference,
  report: (text: string) => void,
): Promise<void> {
  try {
    if (bodies) await s3Client(bodies.client).send(new DeleteObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
  } catch (error) {
    report(`could not delete s3://${ref.bucket}/${ref.key} after its delivery completed: ${String(error)}`);
  }
}
