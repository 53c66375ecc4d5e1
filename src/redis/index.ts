/**
 * A dedup store shared by every process through one Redis or a Redis Cluster, for the `redis`
 * and `ioredis` clients, with stale-delivery ordering (`createReceiver({ ordering: true })`).
 *
 * @example
 * ```ts
 * import { redisDedupStore } from 'webhook-cms-receiver/redis';
 * const receiver = createReceiver({ token, dedup: redisDedupStore(redisClient) });
 * ```
 * @module webhook-cms-receiver/redis
 */
export { redisDedupStore, type RedisDedupStoreOptions } from './redis-store.js';
export type { RedisClientLike, NodeRedisClientLike, IoRedisClientLike } from './script-runner.js';
export { redisLedger, type RedisLedgerOptions } from './redis-ledger.js';
export { redisLedgerStore, type RedisLedgerStoreOptions } from './ledger-store.js';
