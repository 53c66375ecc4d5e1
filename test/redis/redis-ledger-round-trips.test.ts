import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { redisLedger } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { clientNames, connect, describeWithRedis, freshPrefix, redisUrl, type TestClient } from './redis-clients.js';

const token = 'redis-ledger-round-trips';

describeWithRedis('redisLedger round trips, as Redis sees them (MONITOR)', () => {
  let monitor: Redis;
  const seen: string[][] = [];
  beforeAll(async () => {
    monitor = new Redis(redisUrl!);
    const feed = await monitor.monitor();
    // Only what clients send: MONITOR also shows each command a script runs (source `lua`).
    feed.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') seen.push(args);
    });
  });
  afterAll(() => monitor.disconnect());

  for (const name of clientNames) {
    it(`with ${name}: 60 deliveries written in one batch are one command`, async () => {
      const redis: TestClient = await connect(name);
      const keyPrefix = freshPrefix();
      // A long flush window, so the 60 rows wait for one write.
      const ledger = redisLedger(redis.client, { keyPrefix, flushMs: 60_000 });
      const receiver = createReceiver({ token, ledger });
      const deliver = async () =>
        (await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), { 'article.sync': () => {} }))
          .status;
      expect(await deliver()).toBe(200);
      await ledger.flush(); // loads the script (EVALSHA answered NOSCRIPT, then EVAL)
      const mine = () => seen.filter((args) => args.some((arg) => arg.startsWith(keyPrefix)));
      await expect.poll(() => mine().length).toBeGreaterThan(0);
      // MONITOR's feed is asynchronous: let the warm-up's commands arrive before counting.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = mine().length;
      for (let i = 0; i < 60; i++) expect(await deliver()).toBe(200);
      await ledger.flush();
      await expect.poll(() => mine().length).toBeGreaterThan(before);
      // Give MONITOR's feed time to deliver anything else before counting.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const commands = mine().slice(before);
      console.log(`${name}: commands for one batch of 60 rows:`, commands.map((args) => args[0]).join(', '));
      expect(commands.map((args) => args[0]!.toLowerCase())).toEqual(['evalsha']);
      expect((await ledger.list({ limit: 100 })).rows).toHaveLength(61);
      await redis.close();
    });
  }
});
