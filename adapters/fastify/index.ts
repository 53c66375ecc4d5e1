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
import type { WebhookEvent } from 'webhook-cms-receiver';

declare module 'fastify' {
  // Declaration merging with Fastify's own request type, so `request.webhookEvent` needs no cast.
  interface FastifyRequest {
    /** Set by `verifyWebhook` from `webhook-cms-receiver/fastify`. */
    webhookEvent?: WebhookEvent | undefined;
  }
}

export type { FastifyReplyLike, FastifyRequestLike } from './fastify-io.js';
export { verifyWebhook, webhookHandler } from './route-handlers.js';
export { type FastifyScope, webhookPlugin, type WebhookPluginOptions } from './webhook-plugin.js';
