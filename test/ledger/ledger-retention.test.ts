import { Redis } from 'ioredis';
import { createLedger, memoryLedger, memoryLedgerStore } from 'webhook-cms-receiver';
import { redisLedgerStore } from 'webhook-cms-receiver/redis';
import { describe, expect, it } from 'vitest';

// A ledger's retention given in seconds by mistake (30 days = 2,592,000) reads as 43 minutes
// of milliseconds: every row would be pruned before anyone looked. It throws at start instead.
describe('a ledger retention in seconds by mistake', () => {
  it('throws at start, naming the unit and the default', () => {
    expect(() => memoryLedger({ retentionMs: 30 * 86_400 })).toThrow(
      /ledger: retentionMs is 2592000 ms \(43\.2 min\).*milliseconds, not seconds: 30 days is 2592000000/,
    );
    expect(() => createLedger(memoryLedgerStore(), { retentionMs: 59 * 60_000 })).toThrow(RangeError);
    // The store keeps its own expiry: the same check there (a client that never connects).
    const redis = new Redis({ lazyConnect: true });
    expect(() => redisLedgerStore(redis, { retentionMs: 86_400 })).toThrow(/redisLedger: retentionMs is 86400 ms/);
    redis.disconnect();
  });

  it('takes an hour and more, and the default', () => {
    expect(() => memoryLedger({ retentionMs: 3_600_000 })).not.toThrow();
    expect(() => memoryLedger({ retentionMs: 7 * 86_400_000 })).not.toThrow();
    expect(() => memoryLedger()).not.toThrow();
  });
});
