import type { DedupStore } from '../dedup/store.js';
import { CLAIM_CHECKS } from './claim-checks.js';
import { KEPT_CHECKS } from './kept-checks.js';
import { ORDERING_CHECKS } from './ordering-checks.js';
import type { MakeDedupStore, StoreCheck, StoreCheckContext } from './store-check.js';
import {
  StoreCheckError,
  type StoreCheckReport,
  type StoreCheckResult,
  storeCheckReport,
} from './store-check-report.js';
import { TRANSACT_CHECKS } from './transact-checks.js';

export type { MakeDedupStore, StoreSettings } from './store-check.js';
export { StoreCheckError, type StoreCheckReport, type StoreCheckResult } from './store-check-report.js';

/** Options of {@link checkDedupStore}. */
export interface CheckDedupStoreOptions {
  /** Shown at the head of the report. Default `'store'`. */
  name?: string;
  /** The short lease (ms) the lease checks ask for and wait out (2.5 times). Default 200. */
  leaseMs?: number;
  /** The short retention (ms) the retention checks ask for and wait out (twice, plus 100). Default 300. */
  retentionMs?: number;
  /** How many copies of one claim race each other. Default 50. */
  concurrentClaims?: number;
  /** Throw a {@link StoreCheckError} when a check fails (the default), or only return the report. */
  throwOnFailure?: boolean;
}

const CHECKS: StoreCheck[] = [...CLAIM_CHECKS, ...ORDERING_CHECKS, ...KEPT_CHECKS, ...TRANSACT_CHECKS];

/**
 * Runs the dedup store contract against a store you wrote or wrapped, with real time and
 * short leases: claim races (of many concurrent claims exactly one wins), the second claim
 * refused, lease expiry, complete/renew/release after a lost lease, the answer replayed,
 * retention, and, where the store has them, ordering, kept requests and `transact`. It
 * catches a client that silently drops a claim's condition (Powertools #5716: a Redis
 * wrapper without `NX` disabled dedup). Framework-agnostic: call it from any test runner.
 *
 * `makeStore` is called once per check with the lease and retention to use; point it at a
 * test database or key prefix. A run takes a few seconds (the leases and retentions are
 * waited out).
 *
 * @returns the report: each check passed, failed (with what the store did and the fix) or
 *   skipped (an optional part the store lacks).
 * @throws StoreCheckError when a check failed, unless `throwOnFailure: false`.
 * @example
 * ```ts
 * import { checkDedupStore } from 'webhook-cms-receiver/testing';
 *
 * await checkDedupStore(({ leaseMs, retentionMs }) => myDedupStore(client, { leaseMs, retentionMs }));
 * ```
 */
export async function checkDedupStore(
  makeStore: MakeDedupStore,
  options: CheckDedupStoreOptions = {},
): Promise<StoreCheckReport> {
  const leaseMs = positive(options.leaseMs, 200, 'leaseMs');
  const retentionMs = positive(options.retentionMs, 300, 'retentionMs');
  const concurrentClaims = positive(options.concurrentClaims, 50, 'concurrentClaims');
  const context: StoreCheckContext = {
    leaseMs,
    retentionMs,
    concurrentClaims,
    fresh: async (settings = {}) =>
      makeStore({ leaseMs: settings.leaseMs ?? 60_000, retentionMs: settings.retentionMs ?? 3_600_000 }),
  };
  const sample = await context.fresh();
  // One at a time: checks side by side would slow each other's store calls (one PGlite
  // connection, a small pool) until a renewal came later than the short lease allows.
  const results: StoreCheckResult[] = [];
  for (const check of CHECKS) results.push(await runCheck(check, sample, context));
  const report = storeCheckReport(options.name ?? 'store', results);
  if (!report.ok && options.throwOnFailure !== false) throw new StoreCheckError(report);
  return report;
}

async function runCheck(check: StoreCheck, sample: DedupStore, context: StoreCheckContext): Promise<StoreCheckResult> {
  const skipped = check.skip?.(sample);
  if (skipped !== undefined) return { name: check.name, outcome: 'skipped', problem: skipped };
  try {
    await check.run(context);
    return { name: check.name, outcome: 'passed' };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return { name: check.name, outcome: 'failed', problem, fix: check.fix };
  }
}

function positive(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new TypeError(`checkDedupStore: ${option} must be a positive whole number, got ${String(value)}.`);
  return value;
}
