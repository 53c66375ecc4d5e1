import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';

/**
 * The part of an `SQSClient` (from `@aws-sdk/client-sqs` v3) this entry uses. Declared here,
 * not imported, so this entry's types need none of the SDK's (nor Node's, which they pull
 * in); any `SQSClient` fits.
 *
 * @example
 * ```ts
 * const client: SqsClientLike = new SQSClient({});
 * ```
 */
export interface SqsClientLike {
  send(command: never, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

/**
 * The part of an `S3Client` (from `@aws-sdk/client-s3` v3) this entry uses for large bodies.
 * Declared here, not imported, for the same reason as {@link SqsClientLike}; any `S3Client` fits.
 *
 * @example
 * ```ts
 * const client: S3ClientLike = new S3Client({});
 * ```
 */
export interface S3ClientLike {
  send(command: never, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

// The options' types are structural for the declarations' sake only: what is given is an SDK
// client (the entries check it has `send`), so the commands' outputs keep the SDK's types here.

/** The `SQSClient` behind a client given as {@link SqsClientLike}. */
export function sqsClient(client: SqsClientLike): SQSClient {
  return client as unknown as SQSClient;
}

/** The `S3Client` behind a client given as {@link S3ClientLike}. */
export function s3Client(client: S3ClientLike): S3Client {
  return client as unknown as S3Client;
}
