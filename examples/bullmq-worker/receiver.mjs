// The receiving process: verifies each delivery, hands it to BullMQ and answers at once
// (200 {"ok": true, "queued": true}). It runs no handlers: the workers do.
import { createServer } from 'node:http';
import { Queue } from 'bullmq';
import { createReceiver } from 'webhook-cms-receiver';
import { bullmqQueue } from 'webhook-cms-receiver/bullmq';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { connection, queueName, redisClient } from './redis.mjs';

if (!process.env.WEBHOOK_TOKEN) {
  console.error('Set WEBHOOK_TOKEN to the token from Profile Settings → CMS Integration.');
  process.exit(1);
}

// No offline queue: with Redis down the enqueue fails at once and the service gets a 503 to retry.
const queue = new Queue(queueName, { connection: connection({ enableOfflineQueue: false }) });
queue.on('error', (error) => console.error('queue:', error.message));

const receiver = createReceiver({
  token: process.env.WEBHOOK_TOKEN,
  queue: bullmqQueue(queue),
  // Remembers enqueued delivery ids for 72 h, longer than BullMQ keeps finished jobs.
  dedup: redisDedupStore(redisClient(), { keyPrefix: 'webhooks:receiver:' }),
});

const webhook = webhookHandler(receiver);
const server = createServer((req, res) => {
  if (req.url === '/webhook') return webhook(req, res);
  res.writeHead(404).end();
});
const host = process.env.HOST ?? '127.0.0.1';
server.listen(Number(process.env.PORT ?? 3000), host, () => {
  console.log(`receiving on http://${host}:${server.address().port}/webhook`);
});
