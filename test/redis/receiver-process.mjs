// One receiver process for the multi-process tests: an HTTP server on 127.0.0.1 with the
// built package (imported by name, as a user would) and the Redis dedup store. Settings come
// from the environment (BEHAVIOUR: a handler that hangs or outlives a short lease). It prints
// `listening <port>` when ready and `handling <delivery id>` when a handler starts.
import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';

const { NAME, ADAPTER, CLIENT, REDIS_URL, KEY_PREFIX, LEASE_MS, TOKEN, BEHAVIOUR } = process.env;
const redis = await connect();
const store = redisDedupStore(redis, { keyPrefix: KEY_PREFIX, leaseMs: Number(LEASE_MS) });
const receiver = createReceiver({ token: TOKEN, dedup: store });

const handlers = {
  'article.sync': async (event) => {
    // Counted in Redis, so the test sees every run in every process, even a killed one's;
    // announced after counting, so a kill on the announcement never loses the count.
    await command(['INCR', `${KEY_PREFIX}runs:${event.deliveryId}`]);
    process.stdout.write(`handling ${event.deliveryId}\n`);
    if (BEHAVIOUR === 'hang') await new Promise(() => {}); // until the test kills the process
    // 'slow' outlives a short lease; the usual 30 ms lets concurrent copies overlap.
    await new Promise((resolve) => setTimeout(resolve, BEHAVIOUR === 'slow' ? 1500 : 30));
    return { publishedUrl: `https://blog.example.com/${event.article.slug}?by=${NAME}` };
  },
};

const server = createServer(await listener());
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));

async function listener() {
  if (ADAPTER === 'express') {
    const { default: express } = await import('express');
    const { webhookHandler } = await import('webhook-cms-receiver/express');
    return express().post('/webhook', webhookHandler(receiver, handlers));
  }
  const { getRequestListener } = await import('@hono/node-server');
  const { webhookHandler } = await import('webhook-cms-receiver/fetch');
  return getRequestListener(webhookHandler(receiver, handlers));
}

async function connect() {
  if (CLIENT === 'ioredis') {
    const { Redis } = await import('ioredis');
    return new Redis(REDIS_URL);
  }
  const { createClient } = await import('redis');
  return createClient({ url: REDIS_URL }).connect();
}

function command(args) {
  return CLIENT === 'ioredis' ? redis.call(...args) : redis.sendCommand(args);
}
