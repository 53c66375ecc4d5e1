import { type Receiver, serveRequest, verifyRequest, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  type FastifyReplyLike,
  type FastifyRequestLike,
  fastifyAdapterRequest,
  fastifyHints,
  sendFastifyAnswer,
} from './fastify-io.js';

/**
 * A Fastify 4/5 route handler `(request, reply)` that verifies, deduplicates and answers
 * deliveries. The route needs the raw body: use {@link webhookPlugin}, which sets that up, or
 * register a buffer parser in the route's own encapsulated scope (see the example). Behind
 * Fastify's default JSON parser it answers 500 `Server misconfigured` and logs the fix.
 *
 * Every status comes from the receiver, whose promise never rejects. The handler's promise is
 * left to reject only on a fault in writing the answer: Fastify then answers 500 itself, where
 * swallowing it would let Fastify answer an empty 200 the service takes for success.
 *
 * @example
 * ```ts
 * await app.register(async (scope) => {
 *   scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: receiver.maxBodyBytes }, (_req, body, done) => done(null, body));
 *   scope.post('/webhook', webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) }));
 * });
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers: WebhookHandlers) {
  const hints = fastifyHints(receiver);
  return (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<unknown> =>
    serveRequest(receiver, fastifyAdapterRequest(request, hints), handlers).then((answer) =>
      sendFastifyAnswer(request, reply, answer),
    );
}

/**
 * A `preHandler` hook that only verifies and puts the event on `request.webhookEvent`; your
 * handler writes the response. It answers refused deliveries itself, and your handler runs
 * only after a verified delivery. No dedup runs here. The route needs the raw body, as for
 * {@link webhookHandler}.
 *
 * @example
 * ```ts
 * await app.register(async (scope) => {
 *   scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: receiver.maxBodyBytes }, (_req, body, done) => done(null, body));
 *   scope.post('/webhook', { preHandler: verifyWebhook(receiver) }, async (request) => ({ ok: true, type: request.webhookEvent?.type }));
 * });
 * ```
 */
export function verifyWebhook(receiver: Receiver) {
  const hints = fastifyHints(receiver);
  return (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<unknown> =>
    verifyRequest(receiver, fastifyAdapterRequest(request, hints)).then((result) => {
      if ('answer' in result) return sendFastifyAnswer(request, reply, result.answer);
      request.webhookEvent = result.event;
      return undefined;
    });
}
