// The Redis both processes use: REDIS_URL, or a local one.
import { Redis } from 'ioredis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const queueName = process.env.QUEUE_NAME ?? 'webhooks';

/** BullMQ's connection options. `maxRetriesPerRequest: null` is what BullMQ workers require. */
export function connection(options = {}) {
  const { hostname, port, password, username } = new URL(redisUrl);
  return { host: hostname, port: Number(port || 6379), password, username, maxRetriesPerRequest: null, ...options };
}

/** A client for the dedup store. */
export function redisClient() {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  client.on('error', (error) => console.error('redis:', error.message));
  return client;
}
