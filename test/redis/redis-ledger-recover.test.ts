import { afterAll, beforeAll, it } from 'vitest';
import { redisLedger } from 'webhook-cms-receiver/redis';
import { expectRecoveredAcrossInstances } from '../stores/ledger-recovery.js';
import { clientNames, connect, describeWithRedis, freshPrefix, type TestClient } from './redis-clients.js';

describeWithRedis('redisLedger recovers a refused delivery kept by another instance', () => {
  for (const name of clientNames) {
    let redis: TestClient;
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis.close());

    it(`with ${name}: refused by the instance with the old token, processed once by the one with the new`, async () => {
      const keyPrefix = freshPrefix();
      await expectRecoveredAcrossInstances(() => redisLedger(redis.client, { keyPrefix, keepRefused: true }));
    });
  }
});
