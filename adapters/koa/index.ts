/**
 * The Koa 2 and 3 adapter, built on the `node:http` one. Mount it before any body parser, so
 * it reads the raw bytes itself and refuses bad requests from their headers; behind
 * koa-bodyparser or `@koa/bodyparser` it uses the `ctx.request.rawBody` they keep.
 * In TypeScript, install `@types/koa` (Koa ships no types): this entry types
 * `ctx.state.webhookEvent` by adding it to Koa's `DefaultState`.
 *
 * @example
 * ```ts
 * import Koa from 'koa';
 * import { webhookHandler } from 'webhook-cms-receiver/koa';
 * const webhook = webhookHandler(receiver, handlers);
 * new Koa().use((ctx, next) => (ctx.path === '/webhook' ? webhook(ctx, next) : next())).listen(3000);
 * ```
 * @module webhook-cms-receiver/koa
 */
import type {} from 'koa';
import type { Receiver, WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { serveRequest, verifyRequest } from 'webhook-cms-receiver/adapter-kit';
import { type KoaContextLike, koaAdapterRequest, koaHints, sendKoaAnswer } from './koa-io.js';

declare module 'koa' {
  // Declaration merging with Koa's default state, so `ctx.state.webhookEvent` needs no cast.
  interface DefaultState {
    /** Set by `verifyWebhook` from `webhook-cms-receiver/koa`. */
    webhookEvent?: WebhookEvent;
  }
}

export type { KoaContextLike } from './koa-io.js';

/**
 * Koa's `next`.
 * @inline
 */
// The middleware below are generic in the context so that Koa's `app.use` does not read
// KoaContextLike as a context extension and change the app's type.
type Next = () => Promise<unknown>;

/**
 * Koa 2/3 middleware `(ctx, next)` that verifies, deduplicates and answers deliveries; it
 * answers every request it is given, so mount it on the webhook path (with `@koa/router`, use
 * `router.all` so other methods get the receiver's 405). Every status comes from the receiver;
 * a fault in writing the answer goes to Koa's error handling as usual.
 *
 * @example
 * ```ts
 * router.all('/webhook', webhookHandler(receiver, { 'article.sync': ({ article }) => save(article) }));
 * ```
 */
export function webhookHandler(receiver: Receiver, handlers?: WebhookHandlers) {
  const hints = koaHints(receiver);
  return async <Ctx extends KoaContextLike>(ctx: Ctx, _next?: Next): Promise<void> => {
    sendKoaAnswer(ctx, await serveRequest(receiver, koaAdapterRequest(ctx, hints), handlers));
  };
}

/**
 * Middleware that only verifies, puts the event on `ctx.state.webhookEvent` and calls `next()`;
 * you write the response. It answers refused deliveries itself. No dedup runs here.
 *
 * @example
 * ```ts
 * router.post('/webhook', verifyWebhook(receiver), (ctx) => {
 *   ctx.body = { ok: true, type: ctx.state.webhookEvent?.type };
 * });
 * ```
 */
export function verifyWebhook(receiver: Receiver) {
  const hints = koaHints(receiver);
  return async <Ctx extends KoaContextLike>(ctx: Ctx, next: Next): Promise<void> => {
    const result = await verifyRequest(receiver, koaAdapterRequest(ctx, hints));
    if ('answer' in result) return sendKoaAnswer(ctx, result.answer);
    (ctx.state as { webhookEvent?: WebhookEvent }).webhookEvent = result.event;
    await next();
  };
}
