import type { ClaimOutcome, DedupStore } from 'webhook-cms-receiver';
import { expect } from 'vitest';

/** What a test asks of the store under test; the contract fills in the rest. */
export interface ContractStoreOptions {
  leaseMs?: number;
  retentionMs?: number;
}

/** Makes a fresh store of the kind under test, with the contract's defaults for what a test leaves out. */
export type FreshStore = (options?: ContractStoreOptions) => Promise<DedupStore>;

// Real time, no fake clocks: stores keep time in Redis or Postgres, where a fake clock cannot reach.
export const LEASE_MS = 200;
export const PAST_LEASE_MS = 500;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const CLAIMED = { state: 'claimed', lease: expect.any(String) };
export const IN_PROGRESS = { state: 'in-progress' };

export const leaseOf = (outcome: ClaimOutcome): string => {
  if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(outcome)}`);
  return outcome.lease;
};
