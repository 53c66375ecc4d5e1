/** The answer remembered for a handled delivery, replayed to its duplicates. */
export interface StoredResponse {
  ok: true;
  published_url?: string;
}

/**
 * One delivery as the store sees it: the keys it is known by and how long each is kept.
 * The delivery id is not signed, so the signature is a second key: a captured request
 * replayed under a new id still finds its first copy.
 */
export interface DedupClaim {
  /** `X-Service-Delivery-Id`, or null where the delivery has none. */
  deliveryId: string | null;
  /** The accepted signature, lower-case hex. */
  signature: string;
  /** How long the signature can still verify: the rest of its timestamp's tolerance window. */
  signatureTtlMs: number;
}

/** What a claim found. `lease` identifies this claim in `complete` and `release`. */
export type ClaimOutcome =
  | { state: 'claimed'; lease: string }
  | { state: 'in-progress'; matchedBy: 'delivery-id' | 'signature' }
  | { state: 'done'; matchedBy: 'delivery-id' | 'signature'; response: StoredResponse };

/**
 * Where handled deliveries are remembered. `claim` must be atomic: of any number of
 * concurrent claims for the same keys, exactly one gets `claimed`. A claim is a lease that
 * frees itself when it runs out, so a crashed process cannot block a delivery forever.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token, dedup: memoryDedupStore({ retentionMs: 24 * 3600_000 }) });
 * ```
 */
export interface DedupStore {
  /** Atomically claims the delivery's keys, or reports that another copy holds or finished them. */
  claim(claim: DedupClaim): ClaimOutcome | Promise<ClaimOutcome>;
  /** Marks the delivery done and keeps `response` for the retention period. Ignored if the lease was lost. */
  complete(claim: DedupClaim, lease: string, response: StoredResponse): void | Promise<void>;
  /** Frees the claim after a handler failure, so the service's retry runs it again. Ignored if the lease was lost. */
  release(claim: DedupClaim, lease: string): void | Promise<void>;
}

/** Lease and retention defaults shared by every store. */
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
