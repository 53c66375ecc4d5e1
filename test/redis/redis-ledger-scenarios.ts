import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisLedgerStore } from 'webhook-cms-receiver/redis';
import { checkLedgerStore } from 'webhook-cms-receiver/testing';
import { expectLikeMemoryStore, expectRetriedAppendOnce } from '../stores/ledger-differential.js';
import {
  clientNames,
  connect,
  countingScripts,
  describeWithRedis,
  freshPrefix,
  type TestClient,
} from './redis-clients.js';

/**
 * The ledger store kit and the comparison with the memory store, on both clients; run with
 * the current majors and, from redis-ledger-clients5.test.ts, with `redis5` and `ioredis5`.
 */
export function redisLedgerScenarios(majors: { redis: number; ioredis: number }): void {
  describeWithRedis(`redisLedgerStore (redis ${majors.redis}, ioredis ${majors.ioredis})`, () => {
    for (const name of clientNames) {
      let redis: TestClient;
      beforeAll(async () => {
        redis = await connect(name);
      });
      afterAll(() => redis.close());

      it(`with ${name}: a batch written twice is on record once`, async () => {
        await expectRetriedAppendOnce(redisLedgerStore(redis.client, { keyPrefix: freshPrefix() }));
      });

      it(`with ${name}: passes the ledger store kit`, async () => {
        const report = await checkLedgerStore(() => redisLedgerStore(redis.client, { keyPrefix: freshPrefix() }), {
          throwOnFailure: false,
        });
        expect(report.text).not.toMatch(/fail/i);
        expect(report.ok).toBe(true);
      }, 60_000);

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
}
