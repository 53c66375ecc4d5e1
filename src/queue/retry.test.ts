import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, retryDelayMs, retryPolicy } from './retry.js';

describe('retry backoff: capped exponential with equal jitter', () => {
  it('doubles from initialDelayMs, keeps between half and all of it, and stops at maxDelayMs', () => {
    const policy = { attempts: 10, initialDelayMs: 1000, maxDelayMs: 5000 };
    const low = (attempt: number) => retryDelayMs(policy, attempt, () => 0);
    const high = (attempt: number) => retryDelayMs(policy, attempt, () => 1);
    expect([1, 2, 3, 4, 5, 6].map(low)).toEqual([500, 1000, 2000, 2500, 2500, 2500]);
    expect([1, 2, 3, 4, 5, 6].map(high)).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
    // A huge attempt number neither overflows nor passes the cap.
    expect(high(10_000)).toBe(5000);
  });

  it('fills in the documented defaults and refuses nonsense at start-up', () => {
    expect(retryPolicy(undefined)).toEqual({ attempts: 10, initialDelayMs: 1000, maxDelayMs: 300_000 });
    expect(retryPolicy({ attempts: 3 })).toEqual({ ...DEFAULT_RETRY, attempts: 3 });
    expect(() => retryPolicy({ attempts: 0 })).toThrow('startWorker: retry.attempts');
    expect(() => retryPolicy({ attempts: 2.5 })).toThrow('startWorker: retry.attempts must be an integer, got 2.5.');
    expect(() => retryPolicy({ initialDelayMs: 0 })).toThrow('startWorker: retry.initialDelayMs');
    expect(() => retryPolicy({ maxDelayMs: -1 })).toThrow('startWorker: retry.maxDelayMs');
  });
});
