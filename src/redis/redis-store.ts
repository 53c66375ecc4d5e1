import {
  type ClaimOutcome,
  type DedupClaim,
  type DedupStore,
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type StoredAnswer,
} from 'webhook-cms-receiver';
import { positiveOption } from '../internal/positive.js';
import { redisKeptRequests } from './kept-store.js';
import { DEFAULT_KEY_PREFIX, keysFor } from './keys.js';
import { type RedisClientLike, scriptRunner } from './script-runner.js';
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT } from './scripts.js';

/** Options of {@link redisDedupStore}. */
export interface RedisDedupStoreOptions {
  /**
   * Prepended to every key. Default `webhook-cms:`. Give receivers that must not share
   * deliveries different prefixes. It may hold a hash tag (`{webhooks}:`), which puts every
   * key in one Redis Cluster slot; an empty one (`{}`) is refused.
   */
  keyPrefix?: string;
  /** How long a claim holds without renewal, so a crashed process's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id, and an article's newest timestamp, are remembered. Default 72 h. */
  retentionMs?: number;
}

/**
 * Remembers deliveries in Redis, so every receiver process deduplicates as one. Same
 * semantics as `memoryDedupStore`, ordering included: one key per delivery id, each step one
 * atomic Lua script, so the happy path is two round trips (claim, complete). The leases are
 * Redis TTLs, renewed while the handler runs; complete records the delivery unless another
 * request took it over, and then reports the takeover instead of overwriting its record.
 *
 * Works with `redis` (node-redis v4+) and `ioredis` v5, on one Redis or a Redis Cluster
 * (`createCluster`, `new Cluster(…)`): every script's keys share one hash slot. Redis errors
 * propagate, so the receiver answers 503 and the service retries: a connection killed while a
 * claim is unanswered is a 503 with node-redis, while ioredis sends the claim again once it
 * reconnected (`autoResendUnfulfilledCommands`). Give either client the `'error'` listener
 * its library asks for.
 *
 * **Any string is an id.** A delivery id or article id of at most 512 UTF-16 code units,
 * well-formed, without U+0000 and not starting with U+0001 (an article id also without `}`,
 * which would end its hash tag) is written into its key as given. Any other is written as
 * U+0001, `sha256:` and the hex SHA-256 of its UTF-16 code units: UTF-8 would turn '\uD800'
 * and '\uDC00' into the same U+FFFD. Two distinct ids never share a key.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { redisDedupStore } from 'webhook-cms-receiver/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const receiver = createReceiver({ token, ordering: true, dedup: redisDedupStore(redis, { leaseMs: 30_000 }) });
 * ```
 */
export function redisDedupStore(client: RedisClientLike, options: RedisDedupStoreOptions = {}): DedupStore {
  const run = scriptRunner(client);
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, 'redisDedupStore: leaseMs');
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, 'redisDedupStore: retentionMs');
  const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const keysOf = keysFor(prefix);
  const lease = millis(leaseMs);
  const retention = millis(retentionMs);

  return {
    leaseMs,
    ordering: true,
    kept: redisKeptRequests(run, prefix),
    async claim(claim) {
      // Random, so two processes can never hold the same lease.
      const id = globalThis.crypto.randomUUID();
      const args = claim.order ? [id, lease, String(claim.order.timestamp), retention] : [id, lease];
      return outcomeOf(await run(CLAIM_SCRIPT, await keysOf(claim), args), id, claim);
    },
    async renew(claim, id) {
      return Number(await run(RENEW_SCRIPT, await keysOf(claim), [id, lease])) === 1;
    },
    async complete(claim, id, answer) {
      const args = [id, JSON.stringify(answer), retention];
      if (claim.order) args.push(String(claim.order.timestamp));
      return Number(await run(COMPLETE_SCRIPT, await keysOf(claim), args)) === 1;
    },
    async release(claim, id) {
      await run(RELEASE_SCRIPT, await keysOf(claim), [id]);
    },
  };
}

/** PX takes whole milliseconds. */
function millis(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}

function outcomeOf(reply: unknown, lease: string, claim: DedupClaim): ClaimOutcome {
  const [state, detail] = Array.isArray(reply) ? reply.map(String) : [];
  if (state === 'claimed') return { state, lease };
  if (state === 'in-progress') return { state };
  if (state === 'done' && detail !== undefined) return { state, answer: JSON.parse(detail) as StoredAnswer };
  if (state === 'stale' && claim.order && detail !== undefined) return { state, newerTimestamp: Number(detail) };
  throw new Error(
    `redisDedupStore: unexpected reply to the claim script: ${JSON.stringify(reply)}. ` +
      "Is keyPrefix shared with data that is not this store's?",
  );
}
