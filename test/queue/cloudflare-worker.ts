// The Worker that the cloudflare-*.mjs checks bundle and run in workerd: a receiver in queue
// mode on a Cloudflare Queue producer (large bodies in the R2 bucket BODIES), and the same
// Worker's queue() consumer running the handlers with durableObjectDedupStore. Every handler
// run, effect, message sent and dead letter is written to the QueueLog Durable Object, which
// the checks read over HTTP; /send and /copies put messages on the queue directly, as
// Cloudflare's own redeliveries or a foreign producer would.
import { createReceiver, type QueuedDelivery } from 'webhook-cms-receiver';
import {
  cloudflareQueue,
  type DeadLetterMessage,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  durableObjectDedupStore,
  type QueueBatchLike,
  type QueueMessageBody,
  type QueueProducerLike,
  QUEUE_MESSAGE_MAX_BYTES,
  queueConsumer,
  type R2BucketLike,
  WebhookDedupObject,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

export { WebhookDedupObject };

interface Env {
  WEBHOOK_TOKEN: string;
  WEBHOOKS: QueueProducerLike<QueueMessageBody> & { sendBatch(messages: { body: unknown }[]): Promise<void> };
  DEAD: QueueProducerLike<QueueMessageBody>;
  DEDUP: DurableObjectNamespaceLike;
  LOG: DurableObjectNamespaceLike;
  BODIES: R2BucketLike;
  /** Optional `retry.attempts` of the consumer; 2 when unset. */
  ATTEMPTS?: string;
}

/** The log: lines in the order written, in one object, so counts are exact. */
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

const sha256 = async (text: string): Promise<string> =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');

/** The producer binding, logging each message it sent: its delivery, serialized size, and whether the body is inline. */
const recording = (env: Env): QueueProducerLike<QueueMessageBody> => ({
  async send(message, options) {
    const bytes = new TextEncoder().encode(JSON.stringify(message)).byteLength;
    const where = 'body' in message ? 'inline' : 'ref';
    await env.WEBHOOKS.send(message, options);
    await log(env, `sent ${message.deliveryId} ${bytes} ${where}`);
  },
});

const consume = queueConsumer((env: Env) => ({
  handlers: {
    'article.sync': async ({ deliveryId, article }, { job }) => {
      // The message is the job: its `attempts` is the run's number.
      if (job.attempts < 1) throw Object.assign(new Error('attempts are 1-based'), { fatal: true });
      const run = await log(env, `run ${deliveryId}`);
      if (article.slug === 'fail-once' && run === 1) throw new Error('fails on its first run');
      if (article.slug === 'always-fails') throw new Error('always fails');
      if (article.slug === 'fatal') throw Object.assign(new Error('never works'), { fatal: true });
      if (article.slug.startsWith('sized')) {
        const html = article.content_html ?? '';
        await log(env, `body ${deliveryId} ${html.length} ${await sha256(html)}`);
      }
      await log(env, `effect ${deliveryId}`);
      return { publishedUrl: `https://blog.example.com/${article.slug}` };
    },
  },
  dedup: durableObjectDedupStore(env.DEDUP),
  bodies: env.BODIES,
  requeue: env.WEBHOOKS,
  ordering: true,
  retry: { attempts: Number(env.ATTEMPTS ?? 2), initialDelayMs: 1000, maxDelayMs: 2000 },
  deadLetter: env.DEAD,
  // Only deferrals are recorded: the checks count them, and nothing else is printed.
  logger: {
    warn: (...args: unknown[]) => {
      // The worker's line names the delivery: `… delivery <id> is held by another worker …`.
      const held = args
        .map(String)
        .join(' ')
        .match(/delivery (\S+) is held by another worker/);
      if (held) void log(env, `deferred ${held[1]}`);
    },
    error: () => {},
  },
}));

/** Holds, as another worker would, the claim the consumer makes for an article delivery. */
const heldClaim = (delivery: QueuedDelivery) => ({
  deliveryId: delivery.deliveryId!,
  order: {
    articleId: (JSON.parse(delivery.body) as { article: { id: string } }).article.id,
    timestamp: delivery.timestamp,
  },
});
const held = new Map<string, string>();

const routes: Record<string, (env: Env, request: Request) => Promise<Response>> = {
  // Claims a delivery as another worker would (a copy running, or one killed mid-job), then lets it go.
  '/hold': async (env, request) => {
    const { delivery } = (await request.json()) as { delivery: QueuedDelivery };
    const outcome = await durableObjectDedupStore(env.DEDUP).claim(heldClaim(delivery));
    if (outcome.state !== 'claimed') return Response.json({ held: false, state: outcome.state });
    held.set(delivery.deliveryId!, outcome.lease);
    return Response.json({ held: true });
  },
  '/release': async (env, request) => {
    const { delivery } = (await request.json()) as { delivery: QueuedDelivery };
    await durableObjectDedupStore(env.DEDUP).release(heldClaim(delivery), held.get(delivery.deliveryId!)!);
    return Response.json({ released: true });
  },
  '/limit': async () => Response.json(QUEUE_MESSAGE_MAX_BYTES),
  '/log': async (env) => new Response(await (await callLog(env)).text()),
  // Raw messages, as a foreign producer would send them.
  '/send': async (env, request) => {
    const { messages } = (await request.json()) as { messages: unknown[] };
    await env.WEBHOOKS.sendBatch(messages.map((body) => ({ body, contentType: 'json' })));
    return Response.json({ sent: messages.length });
  },
  // One delivery as cloudflareQueue sends it, then `copies` times on the queue: Cloudflare's redeliveries.
  '/copies': async (env, request) => {
    const { delivery, copies } = (await request.json()) as { delivery: QueuedDelivery; copies: number };
    const sent: QueueMessageBody[] = [];
    const capture = { send: async (message: QueueMessageBody) => void sent.push(message) };
    await cloudflareQueue(capture, { bodies: env.BODIES }).enqueue(delivery, { signal: new AbortController().signal });
    await Promise.all(Array.from({ length: copies }, () => env.WEBHOOKS.send(sent[0]!, { contentType: 'json' })));
    return Response.json({ message: sent[0] });
  },
};

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const route = routes[new URL(request.url).pathname];
    if (route) return route(env, request);
    const receiver = createReceiver({
      token: env.WEBHOOK_TOKEN,
      queue: cloudflareQueue(recording(env), { bodies: env.BODIES }),
      dedup: durableObjectDedupStore(env.DEDUP),
    });
    return webhookHandler(receiver)(request);
  },
  async queue(batch: QueueBatchLike<QueueMessageBody>, env: Env): Promise<void> {
    if (batch.queue === 'webhooks-dead') {
      for (const message of batch.messages) {
        const letter = message.body as DeadLetterMessage;
        // A message that was no object is kept under `original`: it is named by that.
        const name = letter.deliveryId ?? `original:${JSON.stringify('original' in letter ? letter.original : null)}`;
        await log(env, `dead ${name}`);
        await log(env, `reason ${name} ${letter.failure?.reason ?? '(none)'}`);
        await log(env, `dead-attempts ${name} ${letter.failure?.attempts}`);
        if ('bodyRef' in letter) await log(env, `dead-ref ${name} ${letter.bodyRef.key}`);
        message.ack();
      }
      return;
    }
    await consume(batch, env);
    // A consumer that throws after part of its batch: the first batch holding a `throw-batch` delivery.
    const marker = batch.messages.find((message) => JSON.stringify(message.body).includes('throw-batch'));
    if (marker && (await log(env, 'threw-batch')) === 1) throw new Error('the consumer throws mid-batch');
  },
};
