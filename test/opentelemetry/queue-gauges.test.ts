import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueueStats } from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { memorySdk } from './sdk.js';

const gauges = async (sdk: ReturnType<typeof memorySdk>) => ({
  depth: await sdk.points('webhook.queue.depth'),
  oldestAge: await sdk.points('webhook.queue.oldest_age'),
});

afterEach(() => {
  metrics.disable();
});

describe('openTelemetry({ queue }): the queue gauges', () => {
  it('reads stats() only when a reader collects, once per collection for both gauges', async () => {
    const sdk = memorySdk();
    let calls = 0;
    const queue = {
      stats: async (): Promise<QueueStats> => {
        calls++;
        return { depth: 7, oldestAgeSeconds: 12.5 };
      },
    };
    openTelemetry({ ...sdk.providers, queue });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(0);
    const { depth, oldestAge } = await gauges(sdk);
    // One collection per `points` call: two calls, two reads.
    expect(calls).toBe(2);
    expect(depth).toEqual({ unit: '{job}', points: [{ attributes: {}, value: 7 }] });
    expect(oldestAge).toEqual({ unit: 's', points: [{ attributes: {}, value: 12.5 }] });
    await sdk.shutdown();
  });

  it('an empty queue is depth 0 and age 0', async () => {
    const sdk = memorySdk();
    openTelemetry({ ...sdk.providers, queue: { stats: async () => ({ depth: 0, oldestAgeSeconds: undefined }) } });
    const { depth, oldestAge } = await gauges(sdk);
    expect(depth.points.map((p) => p.value)).toEqual([0]);
    expect(oldestAge.points.map((p) => p.value)).toEqual([0]);
    await sdk.shutdown();
  });

  it('a stats() that throws, rejects or answers nonsense reports nothing and never fails the collection', async () => {
    const answers: Array<() => Promise<QueueStats>> = [
      () => {
        throw new Error('redis is down');
      },
      () => Promise.reject(new Error('connection refused')),
      () => Promise.resolve(null as unknown as QueueStats),
      () => Promise.resolve({ depth: Number.NaN, oldestAgeSeconds: Number.POSITIVE_INFINITY }),
    ];
    for (const stats of answers) {
      const sdk = memorySdk();
      openTelemetry({ ...sdk.providers, queue: { stats } });
      // Collecting throws on any collection error.
      expect((await sdk.points('webhook.queue.depth')).points).toEqual([]);
      expect((await sdk.points('webhook.queue.oldest_age')).points).toEqual([]);
      await sdk.shutdown();
    }
  });

  it('no SDK: stats() is never called; a queue without stats() (Cloudflare Queues) makes no gauges', async () => {
    let calls = 0;
    openTelemetry({
      queue: {
        stats: async () => {
          calls++;
          return { depth: 1, oldestAgeSeconds: 1 };
        },
      },
    });
    const sdk = memorySdk();
    openTelemetry({ ...sdk.providers, queue: {} });
    expect((await gauges(sdk)).depth.points).toEqual([]);
    expect(calls).toBe(0);
    await sdk.shutdown();
  });

  it('follows the global meter provider: registered later, the gauges move to it once', async () => {
    let calls = 0;
    const instrumentation = openTelemetry({
      queue: {
        stats: async () => {
          calls++;
          return { depth: 3, oldestAgeSeconds: 4 };
        },
      },
    });
    const first = memorySdk();
    metrics.setGlobalMeterProvider(first.providers.meterProvider);
    // The next delivery looks the provider up again.
    instrumentation.startDelivery({ kind: 'receive', receivedAt: Date.now() });
    expect((await first.points('webhook.queue.depth')).points.map((p) => p.value)).toEqual([3]);
    metrics.disable();
    const second = memorySdk();
    metrics.setGlobalMeterProvider(second.providers.meterProvider);
    instrumentation.startDelivery({ kind: 'receive', receivedAt: Date.now() });
    calls = 0;
    await first.metrics();
    expect(calls).toBe(0);
    expect((await second.points('webhook.queue.depth')).points.map((p) => p.value)).toEqual([3]);
    expect(calls).toBe(1);
    await first.shutdown();
    await second.shutdown();
  });

  it('gives up on a stats() that hangs after 5 s and reports nothing for that collection', async () => {
    const sdk = memorySdk();
    openTelemetry({ ...sdk.providers, queue: { stats: () => new Promise<QueueStats>(() => undefined) } });
    const started = Date.now();
    const depth = await sdk.points('webhook.queue.depth');
    const waited = Date.now() - started;
    expect(depth.points).toEqual([]);
    // The stats() promise never settles, so only the give-up ends the collection; it must not
    // come early (a loaded machine only makes it later, which the test's timeout bounds).
    expect(waited).toBeGreaterThanOrEqual(4900);
    await sdk.shutdown();
  }, 15_000);
});
