// The Worker cloudflare-tenants.mjs bundles and runs in workerd: a receiver in tenant mode and
// queue mode on a Cloudflare Queue producer (large bodies in the R2 bucket BODIES), and the
// same Worker's queue() consumer with durableObjectDedupStore and ordering. Handler runs, stale
// skips, messages sent and dead letters go to the QueueLog Durable Object, read over HTTP.
import { createReceiver, type Tenant } from 'webhook-cms-receiver';
import {
  cloudflareQueue,
  type DurableObjectNamespaceLike,
  durableObjectDedupStore,
  type QueueBatchLike,
  type QueueMessageBody,
  type QueueProducerLike,
  queueConsumer,
  type R2BucketLike,
  WebhookDedupObject,
} from 'webhook-cms-receiver/cloudflare';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

export { QueueLog } from './cloudflare-worker.js';
export { WebhookDedupObject };

interface Env {
  TOKEN_A: string;
  TOKEN_B: string;
  WEBHOOKS: QueueProducerLike<QueueMessageBody> & { sendBatch(messages: { body: unknown }[]): Promise<void> };
  DEAD: QueueProducerLike<QueueMessageBody>;
  DEDUP: DurableObjectNamespaceLike;
  LOG: DurableObjectNamespaceLike;
  BODIES: R2BucketLike;
}

const callLog = (env: Env, entry?: string) =>
  env.LOG.get(env.LOG.idFromName('log')).fetch('https://log/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ entry }),
  });
const log = async (env: Env, entry: string) => void (await callLog(env, entry));

const sha256 = async (text: string): Promise<string> =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');

/** The sites, by the SHA-256 hex of their tokens, as a resolver backed by a table would find them. */
async function sitesOf(env: Env): Promise<Map<string, Tenant>> {
  const sites: Tenant[] = [
    { id: 'site-a', token: env.TOKEN_A, profileId: 'prof-a', domain: 'a.example.com' },
    { id: 'site-b', token: env.TOKEN_B, profileId: 'prof-b', domain: 'b.example.com' },
  ];
  return new Map(await Promise.all(sites.map(async (site) => [await sha256(site.token as string), site] as const)));
}

/** The producer, logging each message it sent: `sent <tenant> <deliveryId> inline|ref <message JSON>`. */
const recording = (env: Env): QueueProducerLike<QueueMessageBody> => ({
  async send(message, options) {
    await env.WEBHOOKS.send(message, options);
    const where = 'body' in message ? 'inline' : 'ref';
    const json = where === 'ref' ? JSON.stringify(message) : '';
    await log(env, `sent ${message.tenant} ${message.deliveryId} ${where} ${json}`.trimEnd());
  },
});

const hookWrites: Promise<void>[] = [];

const consume = queueConsumer((env: Env) => ({
  handlers: {
    'article.sync': async (event) => {
      const html = event.article.content_html ?? '';
      await log(env, `run ${event.tenant?.id} ${event.type} ${event.deliveryId} ${html.length}`);
    },
    'article.trash': async (event) => {
      await log(env, `run ${event.tenant?.id} ${event.type} ${event.deliveryId}`);
    },
  },
  dedup: durableObjectDedupStore(env.DEDUP),
  bodies: env.BODIES,
  requeue: env.WEBHOOKS,
  ordering: true,
  // The hook cannot wait: its write is awaited after the batch, before the invocation ends.
  onStale: ({ deliveryId, event }) => void hookWrites.push(log(env, `stale ${event.tenant?.id} ${deliveryId}`)),
  retry: { attempts: 2, initialDelayMs: 1000, maxDelayMs: 2000 },
  deadLetter: env.DEAD,
  logger: false,
}));

let receiver: ((request: Request) => Promise<Response>) | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/log') return new Response(await (await callLog(env)).text());
    // Raw messages, as Cloudflare's redeliveries of a message would arrive.
    if (pathname === '/send') {
      const { messages } = (await request.json()) as { messages: unknown[] };
      await env.WEBHOOKS.sendBatch(messages.map((body) => ({ body, contentType: 'json' })));
      return Response.json({ sent: messages.length });
    }
    if (!receiver) {
      const sites = await sitesOf(env);
      receiver = webhookHandler(
        createReceiver({
          tenants: (hash) => sites.get(hash),
          queue: cloudflareQueue(recording(env), { bodies: env.BODIES }),
          dedup: durableObjectDedupStore(env.DEDUP),
        }),
      );
    }
    return receiver(request);
  },
  async queue(batch: QueueBatchLike<QueueMessageBody>, env: Env): Promise<void> {
    if (batch.queue === 'webhooks-dead') {
      for (const message of batch.messages) {
        await log(env, `dead ${(message.body as { deliveryId?: string }).deliveryId}`);
        message.ack();
      }
      return;
    }
    await consume(batch, env);
    await Promise.all(hookWrites.splice(0));
  },
};
