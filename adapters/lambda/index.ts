/**
 * The AWS Lambda adapter: API Gateway REST APIs (payload 1.0), HTTP APIs (payload 2.0),
 * Function URLs and Application Load Balancers. Bodies the platform base64-encoded are
 * decoded, every copy of a repeated header is seen, and the answer has the shape the event's
 * source expects.
 *
 * Create the receiver at module scope, once per container, and give it a shared dedup store
 * (`/redis`, `/postgres`): each container has its own memory, so the default memory store
 * would let a redelivery that lands on another container run again.
 *
 * @example
 * ```ts
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { webhookHandler } from 'webhook-cms-receiver/lambda';
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN!, dedup: redisDedupStore(redis) });
 * export const handler = webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) });
 * ```
 * @module webhook-cms-receiver/lambda
 */
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { type ExchangeBinding, exchangeHandler, exchangeVerifier } from 'webhook-cms-receiver/adapter-kit';
import { type LambdaHttpEvent, readEvent } from './lambda-event.js';
import { type LambdaResult, toLambdaResult } from './lambda-result.js';

export type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHeaders,
  LambdaHttpEvent,
  LambdaMultiValueHeaders,
} from './lambda-event.js';
export type { LambdaResult } from './lambda-result.js';

type LambdaBinding = ExchangeBinding<unknown, LambdaResult>;

/**
 * A Lambda handler `(event, context?) => Promise<result>` that verifies, deduplicates and
 * answers deliveries from any HTTP source of Lambda. An event that is no proxy event (a REST
 * API non-proxy integration, whose mapping template re-serialized the body) is answered 500
 * `Server misconfigured` with one log line naming the fix. The promise never rejects.
 *
 * @example
 * ```ts
 * import type { APIGatewayProxyHandlerV2 } from 'aws-lambda';
 * // `satisfies` checks the AWS type and keeps this one, so a test calls handler(event) without casts.
 * export const handler = webhookHandler(receiver, {
 *   'article.sync': async ({ article }) => ({ publishedUrl: await publish(article) }),
 * }) satisfies APIGatewayProxyHandlerV2;
 * ```
 */
export function webhookHandler(
  receiver: Receiver,
  handlers?: WebhookHandlers,
): (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaResult> {
  return exchangeHandler(LAMBDA, receiver, handlers);
}

/**
 * Verifies only: resolves to the event, or to the result to return when the delivery is
 * refused. No dedup runs here.
 *
 * @example
 * ```ts
 * const verified = await verifyWebhook(receiver)(event);
 * if ('result' in verified) return verified.result;
 * await queue.send(verified.event);
 * return { statusCode: 200, body: '{"ok":true}' };
 * ```
 */
export function verifyWebhook(
  receiver: Receiver,
): (event: LambdaHttpEvent, context?: unknown) => Promise<{ event: WebhookEvent } | { result: LambdaResult }> {
  return exchangeVerifier(LAMBDA, receiver, 'result');
}

// An event that is no proxy event, or a throw, is answered in API Gateway's shape.
const LAMBDA: LambdaBinding = { name: 'Lambda', exchange: readEvent, fallback: toLambdaResult };
