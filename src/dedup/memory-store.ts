import { positiveOption } from '../internal/positive.js';
import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS, type ClaimOutcome, type DedupClaim, type DedupStore, type StoredResponse } from './store.js';

/** Options of {@link memoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /** How long a claim holds before a crashed handler's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id is remembered. Must outlast the service's retries. Default 72 h. */
  retentionMs?: number;
  /** Upper bound on remembered keys; the oldest go first. Default 100,000. */
  maxEntries?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

interface Entry {
  lease: string;
  expiresAt: number;
  /** Set once the handler succeeded. */
  response?: StoredResponse;
}

// Entries are written in insertion order, so each sweep looks at a few from the front only.
const SWEEP_PER_CALL = 8;

/**
 * Remembers deliveries in this process's memory: the default store. Claims are atomic because
 * JavaScript runs them to completion without yielding. Bounded by `maxEntries`. Use
 * `redisDedupStore` from `webhook-cms-receiver/redis` when several processes receive.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, dedup: memoryDedupStore({ maxEntries: 1_000_000 }) });
 * ```
 */
export function memoryDedupStore(options: MemoryDedupStoreOptions = {}): DedupStore {
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, 'memoryDedupStore: leaseMs');
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, 'memoryDedupStore: retentionMs');
  const maxEntries = positiveOption(options.maxEntries, 100_000, 'memoryDedupStore: maxEntries');
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let leases = 0;

  const live = (key: string, at: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= at) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  const put = (key: string, entry: Entry): void => {
    entries.delete(key); // re-inserting moves the key to the young end
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  };

  const sweep = (at: number): void => {
    let seen = 0;
    for (const [key, entry] of entries) {
      if (++seen > SWEEP_PER_CALL) break;
      if (entry.expiresAt <= at) entries.delete(key);
    }
  };

  return {
    claim(claim: DedupClaim): ClaimOutcome {
      const at = now();
      sweep(at);
      const keys = keysOf(claim);
      const found = keys.map(([key]) => live(key, at));
      const doneIndex = found.findIndex((entry) => entry?.response);
      if (doneIndex >= 0) return { state: 'done', matchedBy: keys[doneIndex]![2], response: found[doneIndex]!.response! };
      const busyIndex = found.findIndex(Boolean);
      if (busyIndex >= 0) return { state: 'in-progress', matchedBy: keys[busyIndex]![2] };
      const lease = `${++leases}`;
      for (const [key] of keys) put(key, { lease, expiresAt: at + leaseMs });
      return { state: 'claimed', lease };
    },
    complete(claim, lease, response) {
      const at = now();
      for (const [key, ttl] of keysOf(claim, retentionMs)) {
        if (entries.get(key)?.lease === lease) put(key, { lease, expiresAt: at + ttl, response });
      }
    },
    release(claim, lease) {
      for (const [key] of keysOf(claim)) {
        const entry = entries.get(key);
        if (entry?.lease === lease && !entry.response) entries.delete(key);
      }
    },
  };
}

type KeySpec = [key: string, ttlMs: number, matchedBy: 'delivery-id' | 'signature'];

function keysOf(claim: DedupClaim, retentionMs = 0): KeySpec[] {
  // 128 bits of the signature are as collision-proof as a UUID, at half the memory.
  const keys: KeySpec[] = [[`s:${claim.signature.slice(0, 32)}`, claim.signatureTtlMs, 'signature']];
  if (claim.deliveryId !== null) keys.unshift([`i:${claim.deliveryId}`, retentionMs, 'delivery-id']);
  return keys;
}
