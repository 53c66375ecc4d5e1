// The worker Lambda, triggered by the SQS queue: publishes each delivery, once per delivery id
// (the same DynamoDB store), and skips an article delivery older than one already applied.
// It answers batchItemFailures, so one failing delivery does not run its batch again.
import { sqsHandler } from 'webhook-cms-receiver/sqs';
import { bodies, dedup, queue } from './aws.mjs';

const publicBaseUrl = (process.env.PUBLIC_BASE_URL ?? 'https://blog.example.com').replace(/\/+$/, '');

export const handler = sqsHandler({
  ...queue,
  bodies,
  dedup,
  ordering: true,
  // Under the function's Timeout (template.yaml: 300 s), so a slow publish is retried, not killed.
  handlerTimeoutMs: 240_000,
  handlers: {
    // Replace the logging with your publishing code (write the article, rebuild the page, …).
    'article.sync': async ({ article, deliveryId }) => {
      const url = `${publicBaseUrl}/${encodeURIComponent(article.slug)}`;
      console.log(`published ${article.slug} (${article.content_html.length} characters) at ${url} [${deliveryId}]`);
    },
    'article.trash': ({ article, deliveryId }) => console.log(`unpublished ${article.slug} [${deliveryId}]`),
    test: () => console.log('test Test Connection received'),
    unknown: ({ name }) => console.log(`skip unknown event ${name}`),
  },
});
