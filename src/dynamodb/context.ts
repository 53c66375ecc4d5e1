import type { DedupClaim } from 'webhook-cms-receiver';
import { isTransient, type Send } from './calls.js';
import type { ClaimKeys } from './items.js';

/** What the store's steps share, once per store. */
export interface StoreContext {
  send: Send;
  table: string;
  leaseMs: number;
  retentionMs: number;
  /** Resolves once the table check passed (once per store). */
  ready: () => Promise<void>;
  keysOf: (claim: DedupClaim) => Promise<ClaimKeys>;
  /** This host's clock: DynamoDB conditions have no clock of their own (see the store's TSDoc). */
  now: () => number;
  /** Claims sent without an answer, which this process may take back. */
  unanswered: UnansweredClaims;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` again after a transient failure (throttling, a 5xx, a lost connection, a
 * timeout) until `windowMs` has passed, then lets the last failure through. Used to record a
 * handled delivery: the SDK's own three attempts can all be throttled, and an answer left
 * unrecorded lets the delivery's claim lapse and a retry run the handler a second time. The
 * claim still holds meanwhile (the handler finished at most a third of a lease after the last
 * renewal), so no copy can run beside it while this retries.
 */
export async function persisting<T>(windowMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + windowMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error) || Date.now() + pause >= deadline) throw error;
      await sleep(pause * (0.5 + Math.random() / 2));
    }
  }
}

/** Attempts for a lease step whose transaction met another one on the same items. */
export const CONFLICT_ATTEMPTS = 4;

/** A short random pause before trying a transaction again after a conflict. */
export function conflictPause(): Promise<void> {
  return sleep(10 + Math.random() * 30);
}

/** How many claims whose answer never came a store remembers (the oldest are forgotten first). */
const UNANSWERED_MAX = 1_000;

/**
 * Claims this store sent that failed without an answer (a timeout, a dropped connection,
 * throttled retries after one attempt landed), by delivery key: the write may have landed.
 * The receiver answered 503 and ran no handler for them, so when the service's retry reaches
 * this same process and finds a claim held by that very lease, the claim is its own and is
 * taken back at once, instead of a 409 for every retry until the lease lapses.
 */
export class UnansweredClaims {
  private readonly leases = new Map<string, string>();

  /** Remembers the lease of a claim whose outcome is unknown. */
  add(deliveryKey: string, lease: string): void {
    this.leases.delete(deliveryKey);
    this.leases.set(deliveryKey, lease);
    if (this.leases.size > UNANSWERED_MAX) this.leases.delete(this.leases.keys().next().value!);
  }

  /** The lease this process left on the delivery, if any; forgotten once asked. */
  take(deliveryKey: string): string | undefined {
    const lease = this.leases.get(deliveryKey);
    this.leases.delete(deliveryKey);
    return lease;
  }
}
