import { once } from 'node:events';
import { expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freePort } from '../setup/services.js';
import { privateRedisRig } from './private-redis-rig.js';
import { describeWithRedis } from './redis-clients.js';

const token = 'redis-down-token';
const { startRedis, clients } = privateRedisRig('redis-down');

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
