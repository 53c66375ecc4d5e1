import type { StoredAnswer } from '../dedup/store.js';

/**
 * A verified delivery as handed to a job engine: everything a worker needs to rebuild the
 * typed event with the same parser, and nothing it would need the token for.
 *
 * @example
 * ```ts
 * const queue: DeliveryQueue = {
 *   async enqueue(delivery: QueuedDelivery) {
 *     await jobs.add(delivery.deliveryId ?? crypto.randomUUID(), delivery);
 *   },
 * };
 * ```
 */
export interface QueuedDelivery {
  /** The raw body, verified: valid UTF-8 JSON exactly as signed. */
  body: string;
  /** `X-Service-Delivery-Id`; null for a test or unknown event sent without one. */
  deliveryId: string | null;
  /** The envelope's `timestamp` (Unix seconds). */
  timestamp: number;
  /** The envelope's `event` name, such as `article.sync`. */
  event: string;
  /** Which configured token matched: 0 is the current one. */
  tokenIndex: number;
  /**
   * Tenant mode: the id of the tenant it came for. Engines derive job ids from it and the
   * delivery id together (`queueJobKey`), and workers give it to handlers as `event.tenant`.
   */
  tenant?: string;
  /** When the receiver accepted it, in milliseconds since the epoch (the receiver's clock). */
  receivedAt: number;
  /**
   * With `instrumentation`: the receiving span's context (`DeliveryTrace.inject`), so the
   * worker's `webhook.process` span links to it. Never holds the token or the payload.
   */
  trace?: Record<string, string>;
}

/**
 * What {@link DeliveryQueue.enqueue} reports: `duplicate` when the engine already held a job
 * for this delivery id (its own idempotency), so the answer says so too.
 *
 * @example
 * ```ts
 * const result: EnqueueResult = { duplicate: true };
 * ```
 */
export interface EnqueueResult {
  duplicate?: boolean;
}

/**
 * The producer side of a job engine, for `createReceiver({ queue })`. `enqueue` must be
 * idempotent on `delivery.deliveryId` where the engine can be (a job id derived from it),
 * resolve once the engine holds the job durably, and reject when it cannot take it. The
 * receiver gives up after `enqueueTimeoutMs` and aborts `signal`; an engine that adds the
 * job later anyway is harmless, because the service's retry finds that job by its id.
 * `bullmqQueue` (`webhook-cms-receiver/bullmq`) and `pgBossQueue`
 * (`webhook-cms-receiver/pg-boss`) implement it.
 *
 * @example
 * ```ts
 * import { Queue } from 'bullmq';
 * import { bullmqQueue } from 'webhook-cms-receiver/bullmq';
 * const receiver = createReceiver({ token, queue: bullmqQueue(new Queue('webhooks', { connection })) });
 * ```
 */
export interface DeliveryQueue {
  enqueue(delivery: QueuedDelivery, options: { signal: AbortSignal }): Promise<EnqueueResult | void>;
  /**
   * Hybrid answers (`queueWaitMs`): resolves with the job's result once a worker finished it,
   * or undefined when it did not finish within `timeoutMs` (or failed: the engine retries it).
   * Optional: without it the receiver always answers `queued`.
   */
  waitForResult?(delivery: QueuedDelivery, options: { timeoutMs: number }): Promise<JobResult | undefined>;
  /**
   * How far behind the workers are, read from the engine when a metric reader collects
   * (`openTelemetry({ queue })` reports it as `webhook.queue.depth` and
   * `webhook.queue.oldest_age`). Optional: `bullmqQueue` and `pgBossQueue` have it;
   * `cloudflareQueue` has not, as a Worker's Queue binding cannot read its queue's backlog
   * (Cloudflare's dashboard and GraphQL Analytics API can).
   */
  stats?(): Promise<QueueStats>;
}

/**
 * A queue's backlog, from {@link DeliveryQueue.stats}. The engine's own counts: the same in
 * every process that reads them, so dashboards take their maximum, not their sum.
 *
 * @example
 * ```ts
 * const { depth, oldestAgeSeconds } = await bullmqQueue(queue).stats!();
 * if ((oldestAgeSeconds ?? 0) > 600) console.warn(`${depth} jobs wait; the oldest for ${oldestAgeSeconds} s`);
 * ```
 */
export interface QueueStats {
  /**
   * Jobs no worker has taken yet: those ready to run and retries waiting out their delay
   * (BullMQ: wait, paused, prioritized and delayed; pg-boss: created and retry). Running jobs
   * and dead letters are not counted.
   */
  depth: number;
  /**
   * How long the job next in line has waited since it was enqueued, in seconds: the oldest job
   * ready to run (a retry still waiting out its delay is not ready). Undefined when none is.
   */
  oldestAgeSeconds: number | undefined;
}

/**
 * What a worker's job finished with: the answer `handle()` would have given, kept by the
 * engine as the job's result (BullMQ's `returnvalue`, pg-boss's `output`).
 *
 * @example
 * ```ts
 * const result: JobResult = { ok: true, published_url: 'https://blog.example.com/hello' };
 * ```
 */
export type JobResult = StoredAnswer & { duplicate?: true };
