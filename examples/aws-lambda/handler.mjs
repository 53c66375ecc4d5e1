import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/lambda';
import { isPublic } from 'webhook-cms-receiver/publish';

// Created once per container, at cold start, and reused by every invocation it serves. A
// missing WEBHOOK_TOKEN fails the cold start with an error that says so.
//
// Each container has its own memory, so the default in-memory dedup store only recognises a
// redelivery that lands on the same container. In production pass a shared store; on Lambda,
// DynamoDB needs no VPC and no connection across cold starts:
// `dedup: dynamoDbDedupStore(new DynamoDBClient({}), { table: 'webhook-deliveries' })` from
// webhook-cms-receiver/dynamodb (the table, its TTL and the IAM policy: docs/stores.md).
const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN });
const publicBaseUrl = (process.env.PUBLIC_BASE_URL ?? 'https://blog.example.com').replace(/\/+$/, '');

/**
 * The Lambda handler, for API Gateway (REST and HTTP APIs), a Function URL or an ALB: set the
 * function's handler to `handler.handler`. Replace the logging with your publishing code.
 */
export const handler = webhookHandler(receiver, {
  'article.sync': ({ article, deliveryId }) => {
    console.log(`sync  ${article.slug} (${article.status}) "${article.title}" [${deliveryId}]`);
    // Every status change arrives, drafts included: link only what is public now (a
    // scheduled article is not yet). Replace with your code removing a non-public article.
    if (!isPublic(article)) return;
    return { publishedUrl: `${publicBaseUrl}/${encodeURIComponent(article.slug)}` };
  },
  'article.trash': ({ article, deliveryId }) => console.log(`trash ${article.slug} [${deliveryId}]`),
  test: () => console.log('test  Test Connection received'),
  unknown: ({ name }) => console.log(`skip  unknown event ${name}`),
});
