export {
  startWorker,
  type WorkerOptions,
  type WorkerContext,
  type WorkerErrorInfo,
  type QueueWorker,
  type StoreContext,
  type StoreTransaction,
} from './worker.js';
export { JobFailure, isJobFailure, type JobSource, type SourceJob, type SourceSettings } from './job-source.js';
export { DEFAULT_RETRY, retryDelayMs, type RetryOptions, type RetryPolicy } from './retry.js';
