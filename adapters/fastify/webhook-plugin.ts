import type { Receiver, WebhookHandlers } from 'webhook-cms-receiver';
import type { FastifyReplyLike, FastifyRequestLike } from './fastify-io.js';
import { webhookHandler } from './route-handlers.js';

/** Options of {@link webhookPlugin}. */
export interface WebhookPluginOptions {
  receiver: Receiver;
  handlers: WebhookHandlers;
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
  scope.addContentTypeParser('*', leaveUnread);
  scope.all(path, webhookHandler(receiver, handlers));
}

// The name Fastify prints for the plugin in errors and `printPlugins()`.
Object.defineProperty(webhookPlugin, Symbol.for('fastify.display-name'), { value: 'webhook-cms-receiver' });
