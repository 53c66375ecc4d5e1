import type { ClaimOutcome, DedupStore, StoredAnswer } from '../dedup/store.js';
import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS } from '../dedup/store.js';
import { positiveOption } from '../internal/positive.js';
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT } from './scripts.js';
import { scriptRunner, type RedisClientLike } from './script-runner.js';

/** Options of {@link redisDedupStore}. */
export interface RedisDedupStoreOptions {
  /** Prepended to every key. Default `webhook-cms:`. Each script touches one key, so a Redis Cluster needs no hash tag. */
  keyPrefix?: string;
  /** How long a claim holds before a crashed process's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id is remembered. Must outlast the service's retries. Default 72 h. */
  retentionMs?: number;
}

/**
 * Remembers deliveries in Redis, so several receiver processes deduplicate as one. Same
 * semantics as `memoryDedupStore`: one key per delivery id, each step one atomic Lua script,
 * so the happy path is two round trips (claim, complete) and works on a Redis Cluster. A
 * lease is renewed while the handler runs; complete records the delivery unless another
 * process took it over, and reports the takeover instead of overwriting it. Works with `redis`
 * (node-redis v4+) and `ioredis` v5 clients. Redis errors propagate: the receiver answers
 * 503 and the service retries.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { redisDedupStore } from 'webhook-cms-receiver/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const receiver = createReceiver({ token, dedup: redisDedupStore(redis, { leaseMs: 30_000 }) });
 * ```
 */
export function redisDedupStore(client: RedisClientLike, options: RedisDedupStoreOptions = {}): DedupStore {
  const run = scriptRunner(client);
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, 'redisDedupStore: leaseMs');
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, 'redisDedupStore: retentionMs');
  const prefix = options.keyPrefix ?? 'webhook-cms:';
  if (typeof prefix !== 'string')
    throw new TypeError(`redisDedupStore: keyPrefix must be a string, got ${typeof prefix}.`);
  const keyOf = (deliveryId: string): string[] => [`${prefix}id:${deliveryId}`];
  const lease = millis(leaseMs);

  return {
    leaseMs,
    async claim({ deliveryId }) {
      // Random, so two processes can never hold the same lease.
      const id = globalThis.crypto.randomUUID();
      return outcomeOf(await run(CLAIM_SCRIPT, keyOf(deliveryId), [id, lease]), id);
    },
    async renew({ deliveryId }, id) {
      return Number(await run(RENEW_SCRIPT, keyOf(deliveryId), [id, lease])) === 1;
    },
    async complete({ deliveryId }, id, answer) {
      const reply = await run(COMPLETE_SCRIPT, keyOf(deliveryId), [id, JSON.stringify(answer), millis(retentionMs)]);
      return Number(reply) === 1;
    },
    async release({ deliveryId }, id) {
      await run(RELEASE_SCRIPT, keyOf(deliveryId), [id]);
    },
  };
}

/** PX takes whole milliseconds. */
function millis(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}

function outcomeOf(reply: unknown, lease: string): ClaimOutcome {
  const [state, answer] = Array.isArray(reply) ? reply.map(String) : [];
  if (state === 'claimed') return { state, lease };
  if (state === 'in-progress') return { state };
  if (state === 'done' && answer !== undefined) return { state, answer: JSON.parse(answer) as StoredAnswer };
  throw new Error(
    `redisDedupStore: unexpected reply to the claim script: ${JSON.stringify(reply)}. ` +
      "Is keyPrefix shared with data that is not this store's?",
  );
}
