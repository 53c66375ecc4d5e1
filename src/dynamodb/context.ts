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
