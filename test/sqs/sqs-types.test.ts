import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type S3ClientLike,
  type SqsBodies,
  type SqsClientLike,
  sqsHandler,
  sqsQueue,
  sqsSource,
} from 'webhook-cms-receiver/sqs';

describe('sqs types', () => {
  it('an SQSClient and an S3Client of the SDK fit the structural client types', () => {
    expectTypeOf<SQSClient>().toExtend<SqsClientLike>();
    expectTypeOf<S3Client>().toExtend<S3ClientLike>();
  });

  it('sqsQueue, sqsSource and sqsHandler take real SDK clients without a cast', () => {
    // Only type-checked: building the entries with a real client reaches no network.
    const client = new SQSClient({ region: 'us-east-1' });
    const s3 = new S3Client({ region: 'us-east-1' });
    const bodies: SqsBodies = { client: s3, bucket: 'webhook-bodies' };
    const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks';
    expectTypeOf(sqsQueue).toBeCallableWith({ client, queueUrl, bodies });
    expectTypeOf(sqsSource).toBeCallableWith({ client, queueUrl, bodies });
    expectTypeOf(sqsHandler).toBeCallableWith({ handlers: {}, client, queueUrl, bodies });
    client.destroy();
    s3.destroy();
  });

  it('a value that is not a client does not fit', () => {
    expectTypeOf<{ bucket: string }>().not.toExtend<SqsClientLike>();
    expectTypeOf<{ send: string }>().not.toExtend<S3ClientLike>();
  });
});
