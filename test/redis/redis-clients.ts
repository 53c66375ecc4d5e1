import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { describe } from 'vitest';
import type { RedisClientLike } from 'webhook-cms-receiver/redis';

/** The Redis the tests use. CI (.ci/run) starts a redis-server and sets it. */
export const redisUrl = process.env.REDIS_URL;

const HOW_TO_RUN = 'skipped: set REDIS_URL=redis://127.0.0.1:6379 (CI starts redis-server)';
if (!redisUrl) console.warn(`Redis tests ${HOW_TO_RUN}`);

/**
 * A describe block that needs Redis: skipped, saying how to run it, when REDIS_URL is unset.
 * When it is set, an unreachable Redis fails the tests instead of skipping them.
 */
export const describeWithRedis = (name: string, body: () => void) =>
  redisUrl ? describe(name, body) : describe.skip(`${name} (${HOW_TO_RUN})`, body);

/** A connected client of one library, and how to close it. */
export interface TestClient {
  name: 'redis' | 'ioredis';
  client: RedisClientLike;
  /** Runs a plain command, for assertions on what the store wrote. */
  command(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects with no reconnect loop, so a wrong REDIS_URL fails fast instead of hanging. */
export async function connect(name: TestClient['name'], url = redisUrl!): Promise<TestClient> {
  if (name === 'redis') {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 3000 } });
    client.on('error', () => {}); // surfaced by the failing command instead
    await client.connect();
    return { name, client, command: (args) => client.sendCommand(args), close: async () => void (await client.quit()) };
  }
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3000,
  });
  client.on('error', () => {});
  await client.connect();
  return {
    name,
    client,
    command: ([cmd, ...rest]) => client.call(cmd!, ...rest),
    close: async () => void (await client.quit()),
  };
}

export const clientNames = ['redis', 'ioredis'] as const;

/** A key prefix no other test or run shares, so test files can run in parallel on one Redis. */
export const freshPrefix = () => `wcr-test:${randomUUID()}:`;

/**
 * Wraps a client so every EVAL/EVALSHA it sends is counted: one script call is one round trip.
 * A Proxy, so the real client (single node or cluster) does the work.
 */
export function countingScripts<C extends object>(client: C): { client: C; calls: string[] } {
  const calls: string[] = [];
  const counted = new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (/^eval/i.test(String(property))) calls.push(String(property));
        return value.apply(target, args);
      };
    },
  });
  return { client: counted, calls };
}
