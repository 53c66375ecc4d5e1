import type { ClaimOutcome, DedupClaim, DedupStore, StoredResponse } from '../dedup/store.js';
import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS } from '../dedup/store.js';
import { positiveOption } from '../internal/positive.js';
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, RELEASE_SCRIPT } from './scripts.js';
import { scriptRunner, type RedisClientLike } from './script-runner.js';

/** Options of {@link redisDedupStore}. */
export interface RedisDedupStoreOptions {
  /** Prepended to every key. Default `webhook-cms:`. Put a hash tag in it (`{webhook-cms}:`) on Redis Cluster. */
  keyPrefix?: string;
  /** How long a claim holds before a crashed process's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id is remembered. Must outlast the service's retries. Default 72 h. */
  retentionMs?: number;
}

type MatchedBy = 'delivery-id' | 'signature';

/**
 * Remembers deliveries in Redis, so several receiver processes deduplicate as one. Same
 * semantics as `memoryDedupStore`: each claim is one atomic Lua script (one round trip);
 * complete and release only touch keys their own lease still holds, so a process whose lease
 * ran out never overwrites or frees the claim another process took since. Works with `redis`
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

  return {
    async claim(claim) {
      const keys = keysOf(prefix, claim);
      // Random, so two processes can never hold the same lease.
      const lease = globalThis.crypto.randomUUID();
      const reply = await run(
        CLAIM_SCRIPT,
        keys.map(([key]) => key),
        [lease, millis(leaseMs)],
      );
      return outcomeOf(reply, keys, lease);
    },
    async complete(claim, lease, response) {
      const keys = keysOf(prefix, claim);
      const ttls = keys.map(([, matchedBy]) =>
        millis(matchedBy === 'delivery-id' ? retentionMs : claim.signatureTtlMs),
      );
      await run(
        COMPLETE_SCRIPT,
        keys.map(([key]) => key),
        [lease, JSON.stringify(response), ...ttls],
      );
    },
    async release(claim, lease) {
      await run(
        RELEASE_SCRIPT,
        keysOf(prefix, claim).map(([key]) => key),
        [lease],
      );
    },
  };
}

function keysOf(prefix: string, claim: DedupClaim): [key: string, matchedBy: MatchedBy][] {
  // 128 bits of the signature are as collision-proof as a UUID, at half the memory.
  const keys: [string, MatchedBy][] = [[`${prefix}sig:${claim.signature.slice(0, 32)}`, 'signature']];
  if (claim.deliveryId !== null) keys.unshift([`${prefix}id:${claim.deliveryId}`, 'delivery-id']);
  return keys;
}

/** PX takes whole milliseconds; 0 or less tells the complete script to drop the key. */
function millis(ms: number): string {
  return String(Math.max(0, Math.ceil(ms)));
}

function outcomeOf(reply: unknown, keys: [string, MatchedBy][], lease: string): ClaimOutcome {
  const [state, index, response] = Array.isArray(reply) ? reply.map(String) : [];
  if (state === 'claimed') return { state, lease };
  const matchedBy = keys[Number(index) - 1]?.[1];
  if (state === 'in-progress' && matchedBy) return { state, matchedBy };
  if (state === 'done' && matchedBy && response !== undefined)
    return { state, matchedBy, response: JSON.parse(response) as StoredResponse };
  throw new Error(
    `redisDedupStore: unexpected reply to the claim script: ${JSON.stringify(reply)}. Is keyPrefix shared with data that is not this store's?`,
  );
}
