// A Worker in Cloudflare queue mode written as the README's queue-mode section and the TSDoc of
// cloudflareQueue and queueConsumer show it, with no option they do not show: the code between
// the README markers is compared with the README by cloudflare-defaults.mjs. Its handler
// "publishes" with an outgoing fetch, which the check answers and records.
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  cloudflareQueue,
  type DurableObjectNamespaceLike,
  durableObjectDedupStore,
  type QueueProducerLike,
  queueConsumer,
  type R2BucketLike,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

export { WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';

/** The bindings, as `wrangler types` would give them. */
interface Env {
  WEBHOOK_TOKEN: string;
  WEBHOOKS: QueueProducerLike;
  WEBHOOKS_DEAD: QueueProducerLike;
  WEBHOOK_DEDUP: DurableObjectNamespaceLike;
  WEBHOOK_BODIES: R2BucketLike;
}

const handlers: WebhookHandlers = {
  'article.sync': async ({ deliveryId, article }) => {
    const response = await fetch('https://blog.example.com/publish', {
      method: 'POST',
      body: JSON.stringify({ deliveryId, slug: article.slug, length: article.content_html?.length ?? 0 }),
    });
    if (!response.ok) throw new Error(`publish answered ${response.status}`);
  },
};

// README: begin
const consume = queueConsumer((env: Env) => ({
  handlers,
  dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
  bodies: env.WEBHOOK_BODIES,
  requeue: env.WEBHOOKS,
  ordering: true,
  deadLetter: env.WEBHOOKS_DEAD,
}));

export default {
  fetch(request: Request, env: Env) {
    const receiver = createReceiver({
      token: env.WEBHOOK_TOKEN,
      dedup: durableObjectDedupStore(env.WEBHOOK_DEDUP),
      queue: cloudflareQueue(env.WEBHOOKS, { bodies: env.WEBHOOK_BODIES }),
    });
    return webhookHandler(receiver)(request);
  },
  queue: consume,
};
// README: end
