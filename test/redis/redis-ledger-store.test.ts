import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisLedgerStore } from 'webhook-cms-receiver/redis';
import { expectLikeMemoryStore } from '../stores/ledger-differential.js';
import {
  clientNames,
  connect,
  countingScripts,
  describeWithRedis,
  freshPrefix,
  type TestClient,
} from './redis-clients.js';

describeWithRedis('redisLedgerStore answers as the memory store does', () => {
  for (const name of clientNames) {
    let redis: TestClient;
    beforeAll(async () => {
      redis = await connect(name);
    });
    afterAll(() => redis.close());

    it(`with ${name}: lists, pages, sums per hour and prunes alike, one script per append`, async () => {
      const counted = countingScripts(redis.client);
      const store = redisLedgerStore(counted.client, { keyPrefix: freshPrefix() });
      const perAppend: number[] = [];
      let before = 0;
      await expectLikeMemoryStore(store, () => {
        perAppend.push(counted.calls.length - before);
        before = counted.calls.length;
      });
      // The first call of a script Redis does not know yet is an EVALSHA answered NOSCRIPT, then an EVAL.
      expect(perAppend.slice(1)).toEqual([1, 1, 1]);
      expect(perAppend[0]).toBeLessThanOrEqual(2);
    });
  }
});
