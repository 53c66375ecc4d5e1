import { createLedger, type Ledger, type LedgerOptions } from 'webhook-cms-receiver';
import { redisLedgerStore } from './ledger-store.js';
import type { RedisClientLike } from './script-runner.js';

/**
 * Options of {@link redisLedger}: every ledger's, and where its keys live.
 *
 * @example
 * ```ts
 * const options: RedisLedgerOptions = { keyPrefix: 'blog:', retentionMs: 7 * 86_400_000, keepRefused: true };
 * const ledger = redisLedger(redis, options);
 * ```
 */
export interface RedisLedgerOptions extends LedgerOptions {
  /**
   * Prepended to every key (default `webhook-cms:`), followed by the hash tag `{ledger}:`
   * unless the prefix holds a tag of its own: every key of one ledger is in one Redis Cluster
   * slot. Receivers that must not share a ledger take different prefixes.
   */
  keyPrefix?: string;
}

/**
 * A delivery ledger in Redis, shared by every instance, for the `redis` (node-redis v4+) and
 * `ioredis` (v5+) clients, on one Redis or a Redis Cluster. Rows are written in batches, one
 * Lua script (one round trip) per batch; `copy` is counted atomically; lists read an index
 * (article, delivery id, tenant, status class, refusals) and `summary` reads hourly counters.
 * Every key expires after the retention even if nothing prunes it. A Redis that is down costs
 * a `warn` line and rows retried from a bounded buffer, never an answer.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { redisLedger } from 'webhook-cms-receiver/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const ledger = redisLedger(redis, { keepRefused: true });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * const { rows } = await ledger.list({ status: 401, since: Date.now() - 86_400_000 });
 * ```
 */
export function redisLedger(client: RedisClientLike, options: RedisLedgerOptions = {}): Ledger {
  const { keyPrefix, ...ledgerOptions } = options;
  const storeOptions: Parameters<typeof redisLedgerStore>[1] = {};
  if (keyPrefix !== undefined) storeOptions.keyPrefix = keyPrefix;
  if (options.retentionMs !== undefined) storeOptions.retentionMs = options.retentionMs;
  if (options.now !== undefined) storeOptions.now = options.now;
  return createLedger(redisLedgerStore(client, storeOptions), ledgerOptions);
}
