import type { QueuedDelivery } from 'webhook-cms-receiver';

// Declared here, not imported from 'bullmq': BullMQ's own declarations need Node's (its
// classes extend EventEmitter), so importing them would make this entry's types fail for a
// consumer without `@types/node`. BullMQ 5's and 6's classes and options fit these as they are.

/** How long BullMQ keeps finished jobs: BullMQ's `KeepJobs` (`true`, a count, or an age and count). */
export type BullmqKeepJobs = boolean | number | { age?: number; count?: number; limit?: number };

/**
 * The part of BullMQ's `JobsOptions` `bullmqQueue` sets itself. The options a queue's
 * `add` takes are what `jobOptions` accepts, so a BullMQ `Queue` brings all of its own.
 */
export interface BullmqJobOptions {
  jobId?: string;
  removeOnComplete?: BullmqKeepJobs;
  removeOnFail?: BullmqKeepJobs;
}

/** The job states `bullmqQueue`'s `stats()` counts: BullMQ's `JobType`s of a backlog. */
export type BullmqJobState = 'waiting' | 'prioritized' | 'delayed';

/** A job as a BullMQ `Queue` hands it back: the fields `bullmqQueue` reads. */
export interface BullmqQueuedJobLike {
  /** The job's result once it completed: the worker's `JobResult`. */
  returnvalue: unknown;
  /** When it finished (completed or failed), in ms; unset while it waits or runs. */
  finishedOn?: number;
  /** When it was added, in ms. */
  timestamp: number;
}

/**
 * The part of a BullMQ `Queue` (BullMQ 5 or 6) `bullmqQueue` uses. Declared here, not
 * imported, so this entry's types need neither BullMQ's nor Node's; any BullMQ `Queue` fits.
 *
 * @example
 * ```ts
 * const queue: BullmqQueueLike = new Queue('webhooks', { connection });
 * ```
 */
export interface BullmqQueueLike {
  /** Redis keys of the queue, by name (`events` is its event stream). */
  readonly keys: Readonly<Record<string, string>>;
  add(name: string, data: QueuedDelivery, options?: BullmqJobOptions): Promise<unknown>;
  getJob(jobId: string): Promise<BullmqQueuedJobLike | undefined>;
  getJobCounts(...states: BullmqJobState[]): Promise<Record<string, number>>;
  getJobs(states: BullmqJobState[], start: number, end: number, asc: boolean): Promise<BullmqQueuedJobLike[]>;
}

/** The job options a queue's `add` takes: BullMQ's `JobsOptions` for a BullMQ `Queue`. */
export type BullmqJobOptionsOf<Q extends BullmqQueueLike> = NonNullable<Parameters<Q['add']>[2]>;

/**
 * The part of a BullMQ `Job` a worker's handlers get as `context.job` from
 * `bullmqSource`. For BullMQ's whole `Job`, give it as the type argument:
 * `bullmqSource<Job<QueuedDelivery>>({ … })`.
 */
export interface BullmqJobLike {
  /** The job id: `bullmqJobId` of the delivery id. */
  id?: string;
  /** The job's name: the delivery's event. */
  name: string;
  data: QueuedDelivery;
  /** Runs started, counting one whose lock lapsed (a killed worker, a stalled job). */
  attemptsStarted: number;
  /** When it was added, in ms. */
  timestamp: number;
  /** Adds a line to the job's log (`queue.getJobLogs(id)`). */
  log(line: string): Promise<number>;
}

/**
 * BullMQ's `ConnectionOptions`: ioredis options (`{ host, port }`, `{ url }`), or an ioredis
 * or BullMQ client to share.
 */
export type BullmqConnection = object;

/**
 * The part of BullMQ's `WorkerOptions` `bullmqSource` passes to its `Worker`, as BullMQ
 * documents them. Declared here, not imported, so this entry's types need neither BullMQ's
 * nor Node's.
 */
export interface BullmqWorkerOptions {
  connection: BullmqConnection;
  /** A key prefix for all of the queue's keys (`'{webhooks}'` on Redis Cluster); BullMQ's default is `bull`. */
  prefix?: string;
  name?: string;
  blockingConnection?: boolean;
  skipVersionCheck?: boolean;
  skipWaitingForReady?: boolean;
  limiter?: { max: number; duration: number };
  metrics?: { maxDataPoints?: number };
  maximumRateLimitDelay?: number;
  maxStartedAttempts?: number;
  /** How many times a job whose lock lapsed runs again; the worker's attempts unless given. */
  maxStalledCount?: number;
  stalledInterval?: number;
  removeOnComplete?: BullmqKeepJobs;
  removeOnFail?: BullmqKeepJobs;
  skipStalledCheck?: boolean;
  skipLockRenewal?: boolean;
  drainDelay?: number;
  lockDuration?: number;
  lockRenewTime?: number;
  runRetryDelay?: number;
  /** BullMQ's `AdvancedOptions` (custom backoff strategies, repeat settings). */
  settings?: object;
  /** BullMQ's `Telemetry` (a tracer and a context manager). */
  telemetry?: object;
}
