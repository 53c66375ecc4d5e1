/** How one check of {@link checkDedupStore} ended. */
export interface StoreCheckResult {
  /** What was checked, such as `claim: a second claim of a held id is refused (in-progress)`. */
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** Failed: what the store did instead. Skipped: which optional part the store lacks. */
  problem?: string;
  /** Failed: what to change in the store. */
  fix?: string;
}

/**
 * What {@link checkDedupStore} found: every check in order, and `ok` when none failed.
 *
 * @example
 * ```ts
 * const report = await checkDedupStore(makeStore, { throwOnFailure: false });
 * for (const check of report.checks) console.log(check.outcome, check.name);
 * ```
 */
export interface StoreCheckReport {
  ok: boolean;
  checks: StoreCheckResult[];
  /** The report as text, one line per check and the fix under each failure. */
  text: string;
}

/**
 * Thrown by {@link checkDedupStore} when a check failed: the message is the whole report,
 * and `report` holds it as data.
 *
 * @example
 * ```ts
 * try {
 *   await checkDedupStore(makeStore);
 * } catch (error) {
 *   if (error instanceof StoreCheckError) console.log(error.report.checks.filter((check) => check.outcome === 'failed'));
 * }
 * ```
 */
export class StoreCheckError extends Error {
  constructor(readonly report: StoreCheckReport) {
    super(report.text);
    this.name = 'StoreCheckError';
  }
}

const MARKS = { passed: '✓', failed: '✗', skipped: '-' } as const;

/** Puts the results together as a report. */
export function storeCheckReport(name: string, checks: StoreCheckResult[]): StoreCheckReport {
  const failed = checks.filter((check) => check.outcome === 'failed').length;
  const lines = [`${name}: ${failed === 0 ? 'passes' : `fails ${failed} of`} ${checks.length} store checks`];
  for (const check of checks) {
    const note = check.outcome === 'skipped' ? ` (skipped: ${check.problem})` : '';
    lines.push(`  ${MARKS[check.outcome]} ${check.name}${note}`);
    if (check.outcome === 'failed') lines.push(`      got: ${check.problem}`, `      fix: ${check.fix}`);
  }
  return { ok: failed === 0, checks, text: lines.join('\n') };
}
