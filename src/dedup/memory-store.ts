import type { WebhookErrorCode } from '../errors/webhook-error.js';
import { positiveOption } from '../internal/positive.js';
import { ArticleMarks } from './article-marks.js';
import { memoryKeptRequests } from './kept-requests.js';
import { OldestFirstMap } from './oldest-first-map.js';
import {
  type ClaimOutcome,
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type DedupClaim,
  type DedupStore,
  okAnswer,
  STALE_ANSWER,
  type StoredAnswer,
} from './store.js';

/** Options of {@link memoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /** How long a claim holds without renewal before a crashed handler's delivery may run again. Default 60 s. */
  leaseMs?: number;
  /** How long a handled delivery id is remembered. Must outlast the service's retries. Default 72 h. */
  retentionMs?: number;
  /** Upper bound on remembered delivery ids; the oldest go first. Default 100,000. */
  maxEntries?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/** A claim in progress, or a done delivery whose answer carries more than `{ ok: true }`. */
interface Entry {
  /** As the claim answered it: compared as it comes back, with no conversion per call. */
  lease: string;
  expiresAt: number;
  answer: StoredAnswer | undefined;
}

/**
 * What an id maps to. Almost every done delivery answers plain `{ ok: true }`, so it is kept
 * as its expiry time alone: a number costs a fraction of an object at a million ids.
 */
type Slot = Entry | number;

// The map holds ids in claim order and they share one lifetime, so the first to expire sit at
// its front: each call drops at most this many expired ids from there.
const SWEEP_PER_CALL = 8;
// How many running claims an eviction steps over before it lets the map overflow.
const EVICTION_TRIES = 8;
// Dropping live ids is reported at most once per this long, with a count: once per burst.
const EVICTION_REPORT_MS = 60_000;
// What almost every handler's success answers, one shared object (see okAnswer).
const PLAIN_ANSWER = okAnswer();

/**
 * Remembers deliveries in this process's memory: the default store. Claims are atomic because
 * JavaScript runs them to completion without yielding. Bounded by `maxEntries`; when it must
 * drop an id still inside its retention, the next claim carries a warning the receiver hands
 * to `onError`. Use a shared store (`/redis`, `/postgres`, `/cloudflare`) when several
 * processes or serverless instances receive.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, dedup: memoryDedupStore({ maxEntries: 1_000_000 }) });
 * ```
 */
export function memoryDedupStore(options: MemoryDedupStoreOptions = {}): DedupStore {
  const leaseMs = positiveOption(options.leaseMs, DEFAULT_LEASE_MS, 'memoryDedupStore: leaseMs');
  const retentionMs = positiveOption(options.retentionMs, DEFAULT_RETENTION_MS, 'memoryDedupStore: retentionMs');
  const maxEntries = Math.max(
    1,
    Math.floor(positiveOption(options.maxEntries, 100_000, 'memoryDedupStore: maxEntries')),
  );
  const now = options.now ?? Date.now;
  const ids = new OldestFirstMap<Slot>();
  const eviction = { dropped: 0, reportedAt: Number.NEGATIVE_INFINITY };
  const articles = new ArticleMarks({ retentionMs, maxEntries });
  let leases = 0;

  const add = (key: string, slot: Slot, at: number): void => {
    ids.set(key, slot);
    // Forgetting a claim whose handler still runs would let a copy run it again, so such a
    // claim moves to the young end instead; past a few of them the map may briefly overflow.
    for (let tries = 0; ids.size > maxEntries && tries < EVICTION_TRIES; tries++) {
      const oldest = ids.oldestKey()!;
      const value = ids.oldestValue!;
      ids.delete(oldest);
      if (isRunning(value, at)) ids.set(oldest, value);
      else if (expiryOf(value) > at) eviction.dropped++;
    }
  };

  const warning = (at: number): (Error & { code: WebhookErrorCode }) | undefined => {
    if (eviction.dropped === 0 || at - eviction.reportedAt < EVICTION_REPORT_MS) return undefined;
    // An Error with a code rather than a WebhookError: the message keeps the detail onError logs.
    const message =
      `memoryDedupStore dropped ${eviction.dropped} delivery id(s) still inside their retention: it holds at most ` +
      `maxEntries=${maxEntries}. A retry of a dropped delivery would run its handler again. Raise maxEntries, ` +
      'or use a shared store (webhook-cms-receiver/redis or /postgres).';
    eviction.dropped = 0;
    eviction.reportedAt = at;
    return Object.assign(new Error(message), { code: 'dedup_overflow' as const });
  };

  return {
    leaseMs,
    ordering: true,
    kept: memoryKeptRequests(now),
    claim({ deliveryId, order }: DedupClaim): ClaimOutcome {
      const at = now();
      sweep(ids, at);
      const slot = live(ids, deliveryId, at);
      if (slot !== undefined) {
        const answer = answerOf(slot);
        return answer ? { state: 'done', answer } : { state: 'in-progress' };
      }
      const number = ++leases;
      const lease = String(number);
      if (order) {
        const entry = articles.enter(order, { lease: number, until: at + leaseMs, at });
        if (entry.state === 'busy') return { state: 'in-progress' };
        if (entry.state === 'stale') {
          add(deliveryId, { lease, expiresAt: at + retentionMs, answer: STALE_ANSWER }, at);
          return entry;
        }
      }
      add(deliveryId, { lease, expiresAt: at + leaseMs, answer: undefined }, at);
      const dropped = warning(at);
      return dropped ? { state: 'claimed', lease, warning: dropped } : { state: 'claimed', lease };
    },
    renew({ deliveryId, order }, lease) {
      const at = now();
      if (order && !articles.renew(order, { lease: Number(lease), until: at + leaseMs, at })) return false;
      const slot = live(ids, deliveryId, at);
      if (slot === undefined) {
        // Lapsed and nobody took it: hold it again rather than let a copy run beside us.
        add(deliveryId, { lease, expiresAt: at + leaseMs, answer: undefined }, at);
        return true;
      }
      if (typeof slot !== 'object' || slot.lease !== lease || slot.answer) return false;
      slot.expiresAt = at + leaseMs;
      return true;
    },
    complete({ deliveryId, order }, lease, answer) {
      const at = now();
      const slot = live(ids, deliveryId, at);
      if (slot !== undefined && (typeof slot !== 'object' || slot.lease !== lease || slot.answer)) return false;
      if (order) articles.applied(order, Number(lease), at);
      const value: Slot = isPlain(answer) ? at + retentionMs : { lease, expiresAt: at + retentionMs, answer };
      // In place when the claim is still there: the id keeps its place from a moment ago and
      // the map gets no hole to fill (a hole costs as much as a live key until it is rebuilt).
      if (slot === undefined) add(deliveryId, value, at);
      else ids.set(deliveryId, value);
      return true;
    },
    release({ deliveryId, order }, lease) {
      if (order) articles.leave(order, Number(lease));
      const slot = ids.get(deliveryId);
      if (typeof slot === 'object' && slot.lease === lease && !slot.answer) ids.delete(deliveryId);
    },
  };
}

/** A claim whose handler has not finished and whose lease has not run out. */
function isRunning(slot: Slot, at: number): boolean {
  return typeof slot === 'object' && slot.answer === undefined && slot.expiresAt > at;
}

function expiryOf(slot: Slot): number {
  return typeof slot === 'number' ? slot : slot.expiresAt;
}

function answerOf(slot: Slot): StoredAnswer | undefined {
  return typeof slot === 'number' ? okAnswer() : slot.answer;
}

/** True for `{ ok: true }` with nothing else, which a bare expiry time can stand for. */
function isPlain(answer: StoredAnswer): boolean {
  // The shared answer of almost every delivery, known without walking its keys.
  if (answer === PLAIN_ANSWER) return true;
  for (const key in answer) if (key !== 'ok') return false;
  return answer.ok === true;
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
