import type { Queue } from 'bullmq';
import type { QueueStats } from 'webhook-cms-receiver';

/**
 * The states of jobs no worker has taken: ready ones (waiting, prioritized) and retries in
 * backoff (delayed). BullMQ 5 adds its paused list to `waiting`; BullMQ 6 keeps a paused
 * queue's jobs in the wait list and has no `paused` state.
 */
const READY = ['waiting', 'prioritized'] as const;

/**
 * The queue's backlog, in two round trips: its counts, then the job next in line. BullMQ
 * takes jobs from the tail of the wait list (or paused list), then from the head of the
 * prioritized set, so the oldest ready job is one of those; a delayed one is not ready yet.
 */
export async function bullmqStats(queue: Queue): Promise<QueueStats> {
  const counts: Record<string, number> = await queue.getJobCounts(...READY, 'delayed');
  const depth = Object.values(counts).reduce((sum, count) => sum + (count ?? 0), 0);
  if (depth === (counts.delayed ?? 0)) return { depth, oldestAgeSeconds: undefined };
  const next = await queue.getJobs([...READY], 0, 0, true);
  const enqueued = next.map((job) => job.timestamp).filter((at) => Number.isFinite(at));
  if (enqueued.length === 0) return { depth, oldestAgeSeconds: undefined };
  // Producer and collector clocks may differ: a job from the future has waited no time.
  return { depth, oldestAgeSeconds: Math.max(0, (Date.now() - Math.min(...enqueued)) / 1000) };
}
