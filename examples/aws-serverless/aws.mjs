// What both functions share: the AWS clients (region and credentials from the Lambda
// environment; locally, from `npm run dev`) and the names template.yaml passes them.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { dynamoDbDedupStore } from 'webhook-cms-receiver/dynamodb';

for (const name of ['QUEUE_URL', 'BODIES_BUCKET', 'DEDUP_TABLE']) {
  if (!process.env[name]) throw new Error(`Set ${name} (template.yaml sets it on AWS; npm run dev sets it locally).`);
}

/** The queue, as sqsQueue, sqsSource and sqsHandler take it. */
export const queue = { client: new SQSClient({}), queueUrl: process.env.QUEUE_URL };
/** Bodies too large for a message (over 256 KiB) go to this bucket, and are deleted once published. */
export const bodies = { client: new S3Client({}), bucket: process.env.BODIES_BUCKET };
/** Delivery ids, kept 72 h in DynamoDB: one store for every container of both functions. */
export const dedup = dynamoDbDedupStore(new DynamoDBClient({}), { table: process.env.DEDUP_TABLE });
