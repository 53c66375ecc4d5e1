import type { KeptRequestStore } from './kept-requests.js';
/** The answer remembered for a handled delivery, replayed to its duplicates. */
export interface StoredAnswer {
  ok: true;
  published_url?: string;
  /** Set when ordering skipped the delivery as older than one already applied. */
  stale?: true;
}

/**
 * One delivery as the store sees it. Version 2 keys on the delivery id alone: the token in
 * every request already lets whoever can replay a request forge one, so a second key on the
 * signature added no security and merged real deliveries with identical bodies.
 */
export interface DedupClaim {
  /** `X-Service-Delivery-Id`. */
  deliveryId: string;
  /**
   * Present only when the receiver has `ordering: true` and the event is `article.sync` or
   * `article.trash`: the article and the envelope timestamp, for stale-delivery checks.
   */
  order?: ArticleOrder;
}

/** What ordering keys on: the article, and the envelope's own timestamp (Unix seconds). */
export interface ArticleOrder {
  articleId: string;
  timestamp: number;
}

/**
 * What a claim found. `lease` identifies this claim in `renew`, `complete` and `release`;
 * `warning` is something the store wants the user told (through `onError`), such as live
 * ids dropped at its bound.
 */
export type ClaimOutcome =
  | { state: 'claimed'; lease: string; warning?: Error }
  | { state: 'in-progress' }
  | { state: 'done'; answer: StoredAnswer }
  | { state: 'stale'; newerTimestamp: number };

/**
 * Where handled deliveries are remembered. `claim` must be atomic: of any number of
 * concurrent claims for one delivery id, exactly one gets `claimed`. A claim is a lease that
 * frees itself when it runs out, so a crashed process cannot block a delivery forever; the
 * receiver renews it while the handler runs.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, dedup: memoryDedupStore({ retentionMs: 24 * 3600_000 }) });
 * ```
 */
export interface DedupStore {
  /** How long a claim holds without renewal; the receiver renews about every third of it. Default 60 s. */
  readonly leaseMs?: number;
  /**
   * True when the store implements ordering: with `claim.order`, `claim` also answers
   * `stale` (an article delivery older than the newest one applied; the store records the
   * delivery done as `{ ok: true, stale: true }`) and `in-progress` while another delivery
   * for the same article runs; `complete` raises the article's mark; `release` frees the
   * article. `createReceiver({ ordering: true })` refuses a store without it.
   */
  readonly ordering?: boolean;
  /** Atomically claims the delivery id, or reports that another copy holds or finished it. */
  claim(claim: DedupClaim): ClaimOutcome | Promise<ClaimOutcome>;
  /**
   * Extends the lease while the handler runs. False when another request took the id over.
   * Optional for stores written for version 1, whose leases are then never renewed.
   */
  renew?(claim: DedupClaim, lease: string): boolean | Promise<boolean>;
  /**
   * Marks the delivery done and keeps `answer` for the retention period, whenever no other
   * request holds the id (even if this lease lapsed). False when another request took it over.
   */
  complete(claim: DedupClaim, lease: string, answer: StoredAnswer): boolean | void | Promise<boolean | void>;
  /** Frees the claim after a handler failure, so the service's retry runs it again. Ignored if the lease was lost. */
  release(claim: DedupClaim, lease: string): void | Promise<void>;
  /**
   * Transactional stores only (such as `postgresDedupStore(db, { transactional: true })`):
   * claims the id inside a database transaction, runs `work` with that transaction, records
   * the answer in the same transaction and commits. When `work` throws, rolls back and
   * rethrows its error unchanged. A copy in flight answers `in-progress` within about a second.
   * When present, the receiver uses it instead of claim/complete/release.
   */
  transact?(claim: DedupClaim, work: (tx: unknown) => Promise<StoredAnswer>): Promise<TransactOutcome>;
  /**
   * Optional: where requests answered 503 during a rotation window are kept until a token
   * verifies them, shared by every receiver on this store. Without it a receiver keeps them
   * in its own memory.
   */
  readonly kept?: KeptRequestStore;
}

/** What {@link DedupStore.transact} did: ran and committed the work, or found another copy. */
export type TransactOutcome =
  | { state: 'committed'; answer: StoredAnswer }
  | { state: 'in-progress' }
  | { state: 'done'; answer: StoredAnswer }
  | { state: 'stale'; newerTimestamp: number };

/** The answer recorded for a delivery skipped by ordering. */
export const STALE_ANSWER: StoredAnswer = Object.freeze({ ok: true, stale: true });

/** How long a claim holds before a crashed handler's delivery may run again: 60 s. */
export const DEFAULT_LEASE_MS = 60_000;
/**
 * How long a handled delivery id is remembered by default: 72 h, longer than the service's retries.
 *
 * @example
 * ```ts
 * const store = memoryDedupStore({ retentionMs: 2 * DEFAULT_RETENTION_MS });
 * ```
 */
export const DEFAULT_RETENTION_MS = 72 * 60 * 60 * 1000;

const PLAIN: StoredAnswer = Object.freeze({ ok: true });

/**
 * The success body. Shared when there is no URL, so a million remembered ids share one object
 * and a store can tell a plain answer by identity.
 */
export function okAnswer(publishedUrl?: string): StoredAnswer {
  return publishedUrl === undefined ? PLAIN : { ok: true, published_url: publishedUrl };
}
