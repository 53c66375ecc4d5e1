import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterEach, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { redisDedupStore, type RedisClientLike } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { startPrivateRedis } from '../helpers/private-redis.js';
import { freePort } from '../setup/services.js';
import { describeWithRedis } from './redis-clients.js';

const token = 'redis-down-token';
const children: ChildProcess[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await Promise.resolve(close()).catch(() => {});
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A private redis-server (the binary CI installs), so this test can stop and restart it. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = await startPrivateRedis(port, mkdtempSync(`${tmpdir()}/wcr-redis-down-`));
  children.push(child);
  return child;
}

/** The client settings the README recommends: fail at once while disconnected, reconnect in the background. */
const clients = {
  redis: async (url: string) => {
    const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.destroy());
    return client as RedisClientLike;
  },
  ioredis: async (url: string) => {
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 100,
      lazyConnect: true,
    });
    client.on('error', () => {});
    await client.connect();
    closers.push(() => client.disconnect());
    return client as RedisClientLike;
  },
};

describeWithRedis('the Redis store when Redis goes down and comes back', () => {
  it.each(Object.keys(clients) as (keyof typeof clients)[])(
    'with %s: answers 503 without running the handler while Redis is down, then recovers',
    async (name) => {
      const port = await freePort();
      const server = await startRedis(port);
      const client = await clients[name](`redis://127.0.0.1:${port}`);
      let runs = 0;
      const receiver = createReceiver({ token, dedup: redisDedupStore(client), onError: () => {} });
      const handlers = { 'article.sync': () => void runs++ };
      const send = () => receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), handlers);

      expect((await send()).status).toBe(200);
      server.kill('SIGKILL');
      await once(server, 'exit');
      expect(await send()).toEqual({ status: 503, body: { error: 'Dedup store unavailable' } });
      expect(runs).toBe(1);

      await startRedis(port);
      await expect.poll(async () => (await send()).status, { timeout: 10_000, interval: 100 }).toBe(200);
    },
  );
});
