import { type BatchObservableCallback, type Meter, type ObservableGauge, ValueType } from '@opentelemetry/api';
import type { QueueStats } from 'webhook-cms-receiver';
import { METRIC_QUEUE_DEPTH, METRIC_QUEUE_OLDEST_AGE } from './names.js';

/**
 * A collection waits this long for the engine, then reports nothing: a Redis or Postgres that
 * hangs must not hold a Prometheus scrape or an export until the SDK's own timeout.
 */
export const STATS_TIMEOUT_MS = 5000;

/**
 * `webhook.queue.depth` and `webhook.queue.oldest_age`, observed from the queue's `stats()`
 * once per collection (one call feeds both). They live on one meter at a time: when the
 * global meter provider changes, the callback moves to the new one, so a reader never sees
 * the queue twice.
 */
export class QueueGauges {
  private attached: { meter: Meter; gauges: ObservableGauge[]; observe: BatchObservableCallback } | undefined;

  constructor(private readonly stats: () => Promise<QueueStats>) {}

  /** Observes on `meter` from now on, or nowhere when it is undefined (no SDK). */
  attach(meter: Meter | undefined): void {
    if (meter === this.attached?.meter) return;
    if (this.attached) this.attached.meter.removeBatchObservableCallback(this.attached.observe, this.attached.gauges);
    this.attached = undefined;
    if (!meter) return;
    const depth = meter.createObservableGauge(METRIC_QUEUE_DEPTH, {
      description: 'Jobs no worker has taken yet: ready ones and retries waiting out their delay.',
      unit: '{job}',
      valueType: ValueType.INT,
    });
    const oldestAge = meter.createObservableGauge(METRIC_QUEUE_OLDEST_AGE, {
      description: 'How long the job next in line has waited since it was enqueued; 0 when none is ready.',
      unit: 's',
    });
    // Collections only: the SDK calls it when a reader collects, never per delivery.
    const observe: BatchObservableCallback = async (result) => {
      const stats = await read(this.stats);
      if (typeof stats !== 'object' || stats === null) return;
      // Numbers that cannot be right are not reported: a gap is honest, a made-up 0 is not.
      if (!isNonNegative(stats.depth)) return;
      result.observe(depth, stats.depth);
      const age = stats.oldestAgeSeconds ?? 0;
      if (isNonNegative(age)) result.observe(oldestAge, age);
    };
    meter.addBatchObservableCallback(observe, [depth, oldestAge]);
    this.attached = { meter, gauges: [depth, oldestAge], observe };
  }
}

/** The stats, or undefined when they threw, rejected or took too long: an observation never fails the collection. */
async function read(stats: () => Promise<QueueStats>): Promise<QueueStats | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), STATS_TIMEOUT_MS);
    (timer as { unref?: () => void }).unref?.();
  });
  try {
    return await Promise.race([Promise.resolve().then(stats), late]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
