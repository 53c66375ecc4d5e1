import type { ClaimOutcome, DedupStore } from '../dedup/store.js';

/** The lease and retention a check asks its fresh store for, in milliseconds. */
export interface StoreSettings {
  leaseMs: number;
  retentionMs: number;
}

/**
 * Makes a fresh store with the given lease and retention: `checkDedupStore` calls it once
 * per check, so one check's leftovers cannot pass or fail another. Stores may share a
 * keyspace (every check uses new random ids), but use a test database or key prefix: the
 * kept-request checks keep and take requests of their own.
 */
export type MakeDedupStore = (settings: StoreSettings) => DedupStore | Promise<DedupStore>;

/** What one check runs with: fresh stores and the short timings to use. */
export interface StoreCheckContext {
  /** A fresh store; the check's short lease and retention unless it asks for others. */
  fresh(settings?: Partial<StoreSettings>): Promise<DedupStore>;
  /** The short lease used where a lease must lapse. */
  leaseMs: number;
  /** The short retention used where a record must be forgotten. */
  retentionMs: number;
  /** How many copies of one claim race each other. */
  concurrentClaims: number;
}

/** One named check of the store contract, with what to change when it fails. */
export interface StoreCheck {
  name: string;
  /** How to fix a store that fails this check. */
  fix: string;
  /** Why this check does not apply to `store` (it lacks an optional part), or undefined when it does. */
  skip?(store: DedupStore): string | undefined;
  /** Resolves when the store behaves; throws an Error saying what it did instead. */
  run(context: StoreCheckContext): Promise<void>;
}

/** Throws `problem` unless `condition` holds. */
export function expectThat(condition: boolean, problem: string): void {
  if (!condition) throw new Error(problem);
}

/** The outcome as the report shows it: the lease, a random string, is left out. */
export function shown(value: unknown): string {
  if (value && typeof value === 'object' && 'lease' in value) return JSON.stringify({ ...value, lease: '…' });
  return JSON.stringify(value) ?? String(value);
}

/** The lease of a claim that must have been won. */
export function leaseOf(outcome: ClaimOutcome, what: string): string {
  expectThat(
    outcome.state === 'claimed' && typeof outcome.lease === 'string' && outcome.lease.length > 0,
    `${what}: expected { state: 'claimed', lease }, got ${shown(outcome)}`,
  );
  return (outcome as { lease: string }).lease;
}

/** Throws unless `outcome` equals `expected` (compared as JSON with sorted keys). */
export function expectOutcome(outcome: unknown, expected: unknown, what: string): void {
  expectThat(
    sortedJson(outcome) === sortedJson(expected),
    `${what}: expected ${shown(expected)}, got ${shown(outcome)}`,
  );
}

function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** A delivery id no other check or run uses. */
export const newId = (): string => `check-${globalThis.crypto.randomUUID()}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
