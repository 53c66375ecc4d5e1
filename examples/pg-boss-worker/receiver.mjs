// The receiving process: verifies each delivery, hands it to pg-boss and answers at once
// (200 {"ok": true, "queued": true}). It runs no handlers: the workers do.
import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { pgBossQueue } from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { pool, queueName, startBoss } from './postgres.mjs';

if (!process.env.WEBHOOK_TOKEN) {
  console.error('Set WEBHOOK_TOKEN to the token from Profile Settings → CMS Integration.');
  process.exit(1);
}

const boss = await startBoss();
const receiver = createReceiver({
  token: process.env.WEBHOOK_TOKEN,
  queue: pgBossQueue(boss, queueName),
  // Remembers enqueued delivery ids for 72 h, longer than pg-boss keeps finished jobs.
  dedup: postgresDedupStore(pool(), { table: 'webhooks_received' }),
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
