import { hex128Key } from '../crypto/hex.js';
import { positiveOption } from '../internal/positive.js';
import { OldestFirstMap } from './oldest-first-map.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type ClaimOutcome,
  type DedupClaim,
  type DedupStore,
  type StoredResponse,
} from './store.js';

/** Options of {@link memoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /** How long a claim holds before a crashed handler's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id is remembered. Must outlast the service's retries. Default 72 h. */
  retentionMs?: number;
  /** Upper bound on remembered keys, half for delivery ids and half for signatures; the oldest go first. Default 100,000. */
  maxEntries?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/** A claim in progress, or a done delivery whose answer carries a URL. */
interface Entry {
  lease: number;
  expiresAt: number;
  response: StoredResponse | undefined;
}

/**
 * What a key maps to. Almost every done delivery answers plain `{ ok: true }`, so it is kept
 * as its expiry time alone: a number costs a fraction of an object at a million ids.
 */
type Slot = Entry | number;

const PLAIN: StoredResponse = Object.freeze({ ok: true });

// Each map holds keys of one lifetime in claim order, so the first to expire sit at its front:
// each call drops at most this many expired keys from there, and stops at the first live one.
const SWEEP_PER_CALL = 8;
// How many running claims an eviction steps over before it lets the map overflow.
const EVICTION_TRIES = 8;

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
  // Ids live for the retention period, signatures only for their tolerance window: apart, each
  // map expires from its front, so a signature is freed when its window closes, not 72 h later.
  const ids = new OldestFirstMap<Slot>();
  const signatures = new OldestFirstMap<Slot>();
  const idLimit = Math.max(1, Math.ceil(maxEntries / 2));
  const signatureLimit = Math.max(1, Math.floor(maxEntries / 2));
  let leases = 0;

  const add = (map: OldestFirstMap<Slot>, key: string, slot: Slot, at: number): void => {
    map.set(key, slot);
    const limit = map === ids ? idLimit : signatureLimit;
    // Forgetting a claim whose handler still runs would let a copy run it again, so such a
    // claim moves to the young end instead; past a few of them the map may briefly overflow.
    for (let tries = 0; map.size > limit && tries < EVICTION_TRIES; tries++) {
      const oldest = map.oldestKey()!;
      const value = map.oldestValue!;
      map.delete(oldest);
      if (isRunning(value, at)) map.set(oldest, value);
    }
  };

  return {
    claim(claim: DedupClaim): ClaimOutcome {
      const at = now();
      sweep(ids, at);
      sweep(signatures, at);
      const { deliveryId } = claim;
      const signatureKey = keyOfSignature(claim.signature);
      const byId = deliveryId === null ? undefined : live(ids, deliveryId, at);
      const bySignature = live(signatures, signatureKey, at);
      const idResponse = responseOf(byId);
      if (idResponse) return { state: 'done', matchedBy: 'delivery-id', response: idResponse };
      const signatureResponse = responseOf(bySignature);
      if (signatureResponse) return { state: 'done', matchedBy: 'signature', response: signatureResponse };
      if (byId) return { state: 'in-progress', matchedBy: 'delivery-id' };
      if (bySignature) return { state: 'in-progress', matchedBy: 'signature' };
      const lease = ++leases;
      const expiresAt = at + leaseMs;
      if (deliveryId !== null) add(ids, deliveryId, { lease, expiresAt, response: undefined }, at);
      add(signatures, signatureKey, { lease, expiresAt, response: undefined }, at);
      return { state: 'claimed', lease: String(lease) };
    },
    complete(claim, lease, response) {
      const at = now();
      const owner = Number(lease);
      const plain = isPlain(response);
      const finish = (map: OldestFirstMap<Slot>, key: string, ttlMs: number): void => {
        const slot = map.get(key);
        if (typeof slot !== 'object' || slot.lease !== owner) return;
        // Updated in place: the key keeps its place from the claim, a moment ago, and the map
        // gets no hole to fill (a hole costs as much as a live key until the map is rebuilt).
        map.set(key, plain ? at + ttlMs : { lease: owner, expiresAt: at + ttlMs, response });
      };
      if (claim.deliveryId !== null) finish(ids, claim.deliveryId, retentionMs);
      finish(signatures, keyOfSignature(claim.signature), claim.signatureTtlMs);
    },
    release(claim, lease) {
      const owner = Number(lease);
      const free = (map: OldestFirstMap<Slot>, key: string): void => {
        const slot = map.get(key);
        if (typeof slot === 'object' && slot.lease === owner && !slot.response) map.delete(key);
      };
      if (claim.deliveryId !== null) free(ids, claim.deliveryId);
      free(signatures, keyOfSignature(claim.signature));
    },
  };
}

/** A claim whose handler has not finished and whose lease has not run out. */
function isRunning(slot: Slot, at: number): boolean {
  return typeof slot === 'object' && slot.response === undefined && slot.expiresAt > at;
}

function expiryOf(slot: Slot): number {
  return typeof slot === 'number' ? slot : slot.expiresAt;
}

function responseOf(slot: Slot | undefined): StoredResponse | undefined {
  return typeof slot === 'number' ? PLAIN : slot?.response;
}

/** True for `{ ok: true }` with nothing else, which a bare expiry time can stand for. */
function isPlain(response: StoredResponse): boolean {
  for (const key in response) if (key !== 'ok') return false;
  return response.ok === true;
}

function live(map: OldestFirstMap<Slot>, key: string, at: number): Slot | undefined {
  const slot = map.get(key);
  if (slot !== undefined && expiryOf(slot) <= at) {
    map.delete(key);
    return undefined;
  }
  return slot;
}

function sweep(map: OldestFirstMap<Slot>, at: number): void {
  for (let i = 0; i < SWEEP_PER_CALL; i++) {
    const key = map.oldestKey();
    if (key === undefined || expiryOf(map.oldestValue!) > at) return;
    map.delete(key);
  }
}

let lastSignature: string | undefined;
let lastKey = '';

// 128 bits of the signature are as collision-proof as a UUID; packed, they cost 9 UTF-16 units.
// Anything that is not hex (only a hand-made claim) keeps its text, which never starts with `#`.
// claim and complete pass the same string a moment apart, so the last key is kept for it.
function keyOfSignature(signature: string): string {
  if (signature !== lastSignature) {
    lastKey = hex128Key(signature) ?? `s:${signature.slice(0, 32)}`;
    lastSignature = signature;
  }
  return lastKey;
}
