import { isJobFailure, type JobResult, memoryDedupStore, type SourceJob, startWorker } from 'webhook-cms-receiver';
import { articleSyncPayload } from 'webhook-cms-receiver/testing';

/**
 * Whether this tree's `startWorker` marks a run that met its delivery claimed elsewhere as
 * `deferred` (the shared worker's part of issue 31). The pg-boss source honours the flag; rows
 * that need the worker to set it run once it does.
 */
export async function workerDefersHeldClaims(): Promise<boolean> {
  let run: ((job: SourceJob) => Promise<JobResult>) | undefined;
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const worker = startWorker(
    {
      start: (given) => {
        run = given;
      },
      close: async () => {},
    },
    { handlers: { 'article.sync': () => held }, dedup: memoryDedupStore(), logger: false, onError: () => {} },
  );
  await worker.ready;
  const body = JSON.stringify(articleSyncPayload());
  const delivery = { body, deliveryId: 'probe', timestamp: 0, event: 'article.sync', tokenIndex: 0, receivedAt: 0 };
  const first = run!({ delivery, job: {}, attempt: 1 });
  const second = await run!({ delivery, job: {}, attempt: 1 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  release();
  await first.catch(() => {});
  await worker.close();
  return isJobFailure(second) && second.deferred;
}
