/**
 * The Fastify 4 and 5 adapter, built on the `node:http` one. Fastify parses JSON bodies before
 * any handler runs, which destroys the bytes the signature covers: {@link webhookPlugin} gives
 * the webhook route its own encapsulated scope where the body stays raw, and leaves the app's
 * JSON parser as it is on every other route.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { webhookPlugin } from 'webhook-cms-receiver/fastify';
 * const app = Fastify();
 * await app.register(webhookPlugin, { receiver, handlers, path: '/webhook' });
 * ```
 * @module webhook-cms-receiver/fastify
 */
import type {} from 'fastify';
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { serveRequest, verifyRequest } from 'webhook-cms-receiver/adapter-kit';
import {
  type FastifyReplyLike,
  type FastifyRequestLike,
  fastifyAdapterRequest,
  fastifyHints,
  sendFastifyAnswer,
} from './fastify-io.js';

declare module 'fastify' {
  // Declaration merging with Fastify's own request type, so `request.webhookEvent` needs no cast.
  interface FastifyRequest {
    /** Set by `verifyWebhook` from `webhook-cms-receiver/fastify`. */
    webhookEvent?: WebhookEvent | undefined;
  }
}

export type { FastifyReplyLike, FastifyRequestLike } from './fastify-io.js';

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
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers) {
  const hints = fastifyHints(receiver);
  return async (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<unknown> =>
    sendFastifyAnswer(request, reply, await serveRequest(receiver, fastifyAdapterRequest(request, hints), handlers));
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
  return async (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<unknown> => {
    const result = await verifyRequest(receiver, fastifyAdapterRequest(request, hints));
    if ('answer' in result) return sendFastifyAnswer(request, reply, result.answer);
    request.webhookEvent = result.event;
  };
}

/** Options of {@link webhookPlugin}. */
export interface WebhookPluginOptions {
  receiver: Receiver;
  /** Omit in queue mode (`createReceiver({ queue })`), where workers run the handlers. */
  handlers?: WebhookHandlers;
  /** The route's path inside the plugin's prefix. Default `/webhook`. */
  path?: string;
}

/**
 * A Fastify content-type parser in callback style.
 * @inline
 */
type ContentTypeParser = (request: never, payload: never, done: (error: Error | null, body?: unknown) => void) => void;

/** The parts of a Fastify 4 or 5 instance the plugin uses. */
export interface FastifyScope {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(contentType: string, parser: ContentTypeParser): unknown;
  all(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): unknown;
}

/**
 * Hands the route the request stream unread, whatever its content type: the adapter then
 * refuses a bad method, size or token from the headers alone, and stops reading a body at
 * `maxBodyBytes` with the core's own 413 (a Fastify `bodyLimit` would answer its own 413 first).
 */
const leaveUnread: ContentTypeParser = (_request, payload, done) => done(null, payload);

/**
 * A Fastify 4/5 plugin that registers the webhook route in its own encapsulated scope, with a
 * content-type parser there that leaves the body unread for the adapter. The app's JSON parser
 * stays as it is on every other route. Every method reaches the route, so anything but POST is
 * answered 405 with `Allow: POST`.
 *
 * @example
 * ```ts
 * await app.register(webhookPlugin, { receiver, handlers: { 'article.sync': ({ article }) => save(article) }, path: '/webhook' });
 * ```
 */
export async function webhookPlugin(scope: FastifyScope, options: WebhookPluginOptions): Promise<void> {
  const { receiver, handlers, path = '/webhook' } = options;
  // Only inside this plugin's scope, which Fastify keeps apart from the app's.
  scope.removeAllContentTypeParsers();
  // JSON by name as well: Fastify caches a named type's parser, and looks the catch-all up anew each time.
  for (const type of ['*', 'application/json']) scope.addContentTypeParser(type, leaveUnread);
  scope.all(path, webhookHandler(receiver, handlers));
}

// The name Fastify prints for the plugin in errors and `printPlugins()`.
Object.defineProperty(webhookPlugin, Symbol.for('fastify.display-name'), { value: 'webhook-cms-receiver' });
