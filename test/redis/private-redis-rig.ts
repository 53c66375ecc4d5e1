import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterEach } from 'vitest';
import type { RedisClientLike } from 'webhook-cms-receiver/redis';
import { startPrivateRedis } from '../helpers/private-redis.js';

/**
 * A private redis-server per test (so a test can stop and restart it) and clients with the
 * settings the README recommends: fail at once while disconnected, reconnect in the
 * background. Everything started is stopped after each test.
 *
 * @example
 * ```ts
 * const rig = privateRedisRig('redis-down');
 * const child = await rig.startRedis(port);
 * const client = await rig.clients.redis(`redis://127.0.0.1:${port}`);
 * ```
 */
export function privateRedisRig(name: string) {
  const children: ChildProcess[] = [];
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await Promise.resolve(close()).catch(() => {});
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    /** Runs after the test, before its redis-server is stopped. */
    onClose(close: () => unknown): void {
      closers.push(close);
    },
    async startRedis(port: number): Promise<ChildProcess> {
      const child = await startPrivateRedis(port, mkdtempSync(`${tmpdir()}/wcr-${name}-`));
      children.push(child);
      return child;
    },
    clients: {
      redis: async (url: string) => {
        const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
        client.on('error', () => {});
        await client.connect();
        closers.push(() => client.destroy());
        return client as RedisClientLike;
      },
      ioredis: async (url: string) => {
        const client = new Redis(url, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          retryStrategy: () => 100,
          lazyConnect: true,
        });
        client.on('error', () => {});
        await client.connect();
        closers.push(() => client.disconnect());
        return client as RedisClientLike;
      },
    },
  };
}
