import type { KeepLimits, KeptRequestStore } from '../dedup/kept-requests.js';
import type { RecoverReport } from './ledger.js';
import type { RefusalRecoverer } from './ledger-sink.js';
import { rowTime } from './row-id.js';

/** What {@link recoverRefusals} works on. */
export interface RecoverRun {
  refusals: KeptRequestStore;
  recoverer: RefusalRecoverer;
  /** Only refusals received at or after this time. */
  since: number;
  /** The bounds a refusal taken and not processed is kept again within. */
  limits: (receivedAt: number) => KeepLimits;
}

/**
 * Each kept refusal whose token is a current one is taken (by exactly one caller across
 * instances) and processed; one whose processing fails, or that does not verify after all, is
 * kept again, so nothing is lost to a failed recovery. A refusal no current token is the token
 * of stays as it is.
 */
export async function recoverRefusals({ refusals, recoverer, since, limits }: RecoverRun): Promise<RecoverReport> {
  const report: RecoverReport = { recovered: 0, failed: 0, unverified: 0 };
  recoverer.ready?.();
  const listed = [...(await refusals.list())].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const { id, tokenSha256 } of listed) {
    if ((rowTime(id) ?? 0) < since) continue;
    if (!(await recoverer.knows(tokenSha256))) {
      report.unverified++;
      continue;
    }
    const request = await refusals.take(id);
    // Another instance took it first: its recovery is that instance's.
    if (!request) continue;
    let status: number | undefined;
    try {
      status = await recoverer.process(request);
    } catch {
      status = 500;
    }
    if (status !== undefined && status < 500) {
      report.recovered++;
      continue;
    }
    if (status === undefined) report.unverified++;
    else report.failed++;
    await refusals.keep(request, limits(request.receivedAt));
  }
  return report;
}
