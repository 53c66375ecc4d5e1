import { afterAll, beforeAll, describe } from 'vitest';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from '../redis/redis-clients.js';
import { storeContract } from './store-contract.js';

describeWithRedis('redisDedupStore on a real Redis', () => {
  for (const name of clientNames) {
    describe(`with ${name}`, () => {
      let redis: TestClient;
      beforeAll(async () => {
        redis = await connect(name);
      });
      afterAll(() => redis?.close());
      storeContract(`redisDedupStore (${name})`, ({ leaseMs, retentionMs }) =>
        redisDedupStore(redis.client, { keyPrefix: freshPrefix(), leaseMs, retentionMs }),
      );
    });
  }
});
