// The Worker that cloudflare-queue.mjs bundles and runs in workerd: a receiver in queue mode
// on a Cloudflare Queue producer, and the same Worker's queue() consumer running the handlers
// with durableObjectDedupStore. Every handler run, effect and dead letter is written to the
// QueueLog Durable Object, which the test reads over HTTP.
import { createReceiver, type QueuedDelivery } from 'webhook-cms-receiver';
import {
  cloudflareQueue,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  durableObjectDedupStore,
  type QueueBatchLike,
  type QueueProducerLike,
  queueConsumer,
  WebhookDedupObject,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

export { WebhookDedupObject };

interface Env {
  WEBHOOK_TOKEN: string;
  WEBHOOKS: QueueProducerLike<QueuedDelivery>;
  DEAD: QueueProducerLike<QueuedDelivery>;
  DEDUP: DurableObjectNamespaceLike;
  LOG: DurableObjectNamespaceLike;
}

/** Lists per kind (`run`, `effect`, `dead`), in the order written: one object, exact counts. */
export class QueueLog {
  constructor(private readonly state: DurableObjectStateLike) {}

  async fetch(request: Request): Promise<Response> {
    // The body first: reading it may let another request in, which must not fall between get and put.
    const { entry } = (await request.json()) as { entry?: string };
    const entries = ((await this.state.storage.get(['log'])).get('log') as string[] | undefined) ?? [];
    if (entry === undefined) return Response.json(entries);
    entries.push(entry);
    await this.state.storage.put({ log: entries });
    return Response.json(entries.filter((line) => line === entry).length);
  }
}

/** Appends an entry and answers how many equal entries there are now; without one, answers the whole log. */
const callLog = (env: Env, entry?: string) =>
  env.LOG.get(env.LOG.idFromName('log')).fetch('https://log/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ entry }),
  });
const log = async (env: Env, entry: string): Promise<number> => Number(await (await callLog(env, entry)).text());

const consume = queueConsumer((env: Env) => ({
  handlers: {
    'article.sync': async ({ deliveryId, article }, { job }) => {
      // The message is the job: its `attempts` is the run's number.
      if (job.attempts < 1) throw Object.assign(new Error('attempts are 1-based'), { fatal: true });
      const run = await log(env, `run ${deliveryId}`);
      if (article.slug === 'fail-once' && run === 1) throw new Error('fails on its first run');
      if (article.slug === 'always-fails') throw new Error('always fails');
      if (article.slug === 'fatal') throw Object.assign(new Error('never works'), { fatal: true });
      await log(env, `effect ${deliveryId}`);
      return { publishedUrl: `https://blog.example.com/${article.slug}` };
    },
  },
  dedup: durableObjectDedupStore(env.DEDUP),
  ordering: true,
  retry: { attempts: 2, initialDelayMs: 1000 },
  deadLetter: env.DEAD,
  logger: false,
}));

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/log') return new Response(await (await callLog(env)).text());
    const receiver = createReceiver({
      token: env.WEBHOOK_TOKEN,
      queue: cloudflareQueue(env.WEBHOOKS),
      dedup: durableObjectDedupStore(env.DEDUP),
    });
    return webhookHandler(receiver)(request);
  },
  async queue(batch: QueueBatchLike<QueuedDelivery>, env: Env): Promise<void> {
    if (batch.queue !== 'webhooks-dead') return consume(batch, env);
    for (const message of batch.messages) {
      await log(env, `dead ${message.body.deliveryId}`);
      message.ack();
    }
  },
};
