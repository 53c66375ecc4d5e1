import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  cloudflareQueue,
  type DurableObjectNamespaceLike,
  durableObjectDedupStore,
  type QueueBatchLike,
  type QueueMessageBody,
  type QueueProducerLike,
  queueConsumer,
  type R2BucketLike,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
// wrangler bundles /publish whole, its sanitizer's optional peers (hast-util-*) included, so
// package.json lists them although this Worker only calls isPublic; without them it fails to bundle.
import { isPublic } from 'webhook-cms-receiver/publish';

// The Durable Object that remembers deliveries: wrangler.toml binds it as WEBHOOK_DEDUP, and the
// runtime finds the class among this module's exports.
export { WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';

/** The bindings this Worker reads; set the token with `npx wrangler secret put WEBHOOK_TOKEN`. */
interface Env {
  WEBHOOK_TOKEN?: string;
  /** `DurableObjectNamespace` in `wrangler types`' output. */
  WEBHOOK_DEDUP?: DurableObjectNamespaceLike;
  /**
   * Queue mode, when bound (`[[queues.producers]]` in wrangler.toml): verified deliveries go to
   * this Cloudflare Queue and are answered at once; this Worker's `queue()` runs the handlers.
   */
  WEBHOOKS?: QueueProducerLike<QueueMessageBody>;
  /** The dead-letter queue: where a delivery goes once its retries are spent, with the reason. */
  WEBHOOKS_DEAD?: QueueProducerLike<unknown>;
  /**
   * Queue mode needs it (`[[r2_buckets]]` in wrangler.toml, `R2Bucket` in `wrangler types`): a
   * queue message holds 128 KB and articles can be far larger, so those bodies wait here, the
   * message holding a reference, until their delivery completed.
   */
  WEBHOOK_BODIES?: R2BucketLike;
}

const handlers: WebhookHandlers = {
  'article.sync': ({ article, profile }) => {
    console.log(`sync ${article.slug} (${article.status})`);
    // Every status change arrives, drafts included: link only what is public now (a scheduled
    // article is not yet). Here you would remove a non-public article from your site.
    if (!isPublic(article)) return;
    // Tell the service where the article now lives; it shows this link in its dashboard
    // (answered inline; in queue mode the answer goes out before this runs).
    return { publishedUrl: `https://${profile.domain}/blog/${article.slug}` };
  },
  'article.trash': ({ article }) => {
    console.log(`trash ${article.slug}`);
  },
  test: () => {
    console.log('test delivery received: the connection works');
  },
};

// The queue() handler: the same handlers, deduplicated through the same Durable Objects (Queues
// deliver at least once), retried with backoff (10 attempts: `max_retries = 9` in wrangler.toml),
// then sent to WEBHOOKS_DEAD with the reason. Bodies too large for a message come from WEBHOOK_BODIES.
const consume = queueConsumer((env: Env) => {
  if (!env.WEBHOOK_DEDUP) throw new Error('WEBHOOK_DEDUP is not bound: the consumer deduplicates through it.');
  return {
    handlers,
    dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
    // Missing, queueConsumer throws naming the [[r2_buckets]] entry to add.
    bodies: env.WEBHOOK_BODIES!,
    // This same queue: a delivery another isolate holds is put back on it, costing no attempt.
    requeue: env.WEBHOOKS!,
    ordering: true,
    deadLetter: env.WEBHOOKS_DEAD,
  };
});

type Handler = (request: Request) => Promise<Response>;

// Bindings arrive with each request, so the receiver is built on the first one and kept for
// the isolate's life. What it remembers lives in the Durable Objects, shared by every isolate.
let cached: { token: string; handle: Handler } | undefined;

function webhookFor(env: Env): Handler {
  const token = env.WEBHOOK_TOKEN;
  if (!token)
    throw new Error(
      'WEBHOOK_TOKEN is not bound. Run `npx wrangler secret put WEBHOOK_TOKEN` (or put it in .dev.vars for `wrangler dev`).',
    );
  if (!env.WEBHOOK_DEDUP)
    throw new Error(
      'WEBHOOK_DEDUP is not bound. Keep the [[durable_objects.bindings]] and [[migrations]] entries of this example in wrangler.toml.',
    );
  if (cached?.token !== token) {
    const receiver = createReceiver({
      token,
      // Every isolate and every location deduplicates as one, through the Durable Objects.
      dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
      // A sync retried after a newer sync or a trash is answered `stale` and not run: a
      // trashed article never comes back. Ordering applies where the handlers run: here when
      // they run inline; in queue mode, in the consumer (queueConsumer's `ordering: true`
      // above), as createReceiver refuses `ordering` with a `queue`.
      ordering: !env.WEBHOOKS,
      // Queue mode when the queue is bound: answered {"ok":true,"queued":true} once enqueued.
      // Missing WEBHOOK_BODIES, cloudflareQueue throws naming the [[r2_buckets]] entry to add.
      queue: env.WEBHOOKS ? cloudflareQueue(env.WEBHOOKS, { bodies: env.WEBHOOK_BODIES! }) : undefined,
    });
    const handle = env.WEBHOOKS ? webhookHandler(receiver) : webhookHandler(receiver, handlers);
    cached = { token, handle };
  }
  return cached.handle;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    if (new URL(request.url).pathname !== '/webhook') return new Response('Not found', { status: 404 });
    return webhookFor(env)(request);
  },
  // Consumer of WEBHOOKS ([[queues.consumers]] in wrangler.toml).
  queue(batch: QueueBatchLike<QueueMessageBody>, env: Env): Promise<void> {
    return consume(batch, env);
  },
};
