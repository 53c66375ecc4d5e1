import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDedupStore } from 'webhook-cms-receiver';
import { checkDedupStore, StoreCheckError } from 'webhook-cms-receiver/testing';
import { connect, describeWithRedis, freshPrefix, type TestClient } from '../redis/redis-clients.js';
import { droppingNx, setNxStore } from './set-nx-store.js';

const failedOf = (report: { checks: { name: string; outcome: string }[] }) =>
  report.checks.filter((check) => check.outcome === 'failed').map((check) => check.name);

describe('checkDedupStore (webhook-cms-receiver/testing)', () => {
  it('passes memoryDedupStore, naming every check and skipping transact, which it lacks', async () => {
    const report = await checkDedupStore((settings) => memoryDedupStore(settings), { name: 'memoryDedupStore' });
    expect(report.ok).toBe(true);
    expect(report.checks.filter((check) => check.outcome === 'passed')).toHaveLength(17);
    expect(report.checks.filter((check) => check.outcome === 'skipped').map((check) => check.problem)).toEqual([
      'not transactional (no `transact`)',
      'not transactional (no `transact`)',
    ]);
    expect(report.text.split('\n')[0]).toBe('memoryDedupStore: passes 19 store checks');
    expect(report.text).toContain('  ✓ claim: exactly one of many concurrent claims of one id wins');
  }, 30_000);

  it('fails a store whose records never expire: lease expiry and retention, with the fix', async () => {
    // The settings the kit asks for are ignored: leases and answers last an hour.
    const report = await checkDedupStore(() => memoryDedupStore({ leaseMs: 3_600_000, retentionMs: 3_600_000 }), {
      throwOnFailure: false,
    });
    expect(report.ok).toBe(false);
    expect(failedOf(report)).toEqual([
      'lease expiry: a claim after the lease lapses wins',
      'lost lease: complete, renew and release with a lease another claim took over change nothing',
      'retention: a handled id is forgotten after retentionMs',
      'ordering: the mark only rises, even when an older delivery completes late',
    ]);
    const retention = report.checks.find((check) => check.name.startsWith('retention'))!;
    expect(retention.problem).toMatch(
      /past a 300 ms retention: expected \{ state: 'claimed', lease \}, got \{"state":"done"/,
    );
    expect(retention.fix).toContain('expiry of retentionMs');
  }, 30_000);

  it('throws a StoreCheckError whose message is the report, each failure with what happened and the fix', async () => {
    const error = await checkDedupStore(() => memoryDedupStore({ leaseMs: 3_600_000 }), { name: 'everlasting' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreCheckError);
    const { report, message } = error as StoreCheckError;
    expect(message).toBe(report.text);
    expect(message).toMatch(/^everlasting: fails 4 of 19 store checks\n/);
    expect(message).toContain('  ✗ lease expiry: a claim after the lease lapses wins\n      got: claim 500 ms later');
    expect(message).toContain('      fix: Let a claim hold only for leaseMs');
  }, 30_000);

  it('refuses options that are not positive whole numbers, naming the option', async () => {
    const make = () => memoryDedupStore();
    await expect(checkDedupStore(make, { leaseMs: 0 })).rejects.toThrow(
      'checkDedupStore: leaseMs must be a positive whole number, got 0.',
    );
    await expect(checkDedupStore(make, { concurrentClaims: 1.5 })).rejects.toThrow('concurrentClaims');
  });
});

describeWithRedis('checkDedupStore against a hand-written SET NX store on a real Redis (Powertools #5716)', () => {
  let redis: TestClient;
  beforeAll(async () => {
    redis = await connect('redis');
  });
  afterAll(() => redis?.close());

  it('passes the store over a client that sends NX', async () => {
    const prefix = freshPrefix();
    const report = await checkDedupStore((settings) => setNxStore(redis.command, { prefix, ...settings }), {
      throwOnFailure: false,
    });
    expect(failedOf(report)).toEqual([]);
    expect(report.checks.filter((check) => check.outcome === 'skipped')).toHaveLength(8);
  }, 30_000);

  it('fails the same store over a client wrapper that drops NX: the second claim and the race are not refused', async () => {
    const prefix = freshPrefix();
    const report = await checkDedupStore((settings) => setNxStore(droppingNx(redis.command), { prefix, ...settings }), {
      throwOnFailure: false,
    });
    expect(report.ok).toBe(false);
    expect(failedOf(report)).toEqual(
      expect.arrayContaining([
        'claim: a second claim of a held id is refused (in-progress)',
        'claim: exactly one of many concurrent claims of one id wins',
        'complete: the answer is replayed to every later claim',
      ]),
    );
    const race = report.checks.find((check) => check.name.startsWith('claim: exactly one'))!;
    expect(race.problem).toBe('50 concurrent claims: 50 claimed and 0 in-progress, expected 1 and 49');
    expect(race.fix).toContain('Powertools #5716');
  }, 30_000);
});
