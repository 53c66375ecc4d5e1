/**
 * The parts of a `PgBoss` this entry uses, written out rather than picked from pg-boss's own
 * types: pg-boss 10 and 11 export the class by default, 12 by name, and their signatures
 * differ in details this entry does not use, so a `PgBoss` of any of the three fits these.
 */

/** pg-boss's database (`boss.getDb()`), or a stand-in given as `{ db }`. */
export interface PgBossDb {
  // biome-ignore lint/suspicious/noExplicitAny: pg-boss's own row type
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** The queue settings this entry creates and updates queues with. */
export interface PgBossQueueSettings {
  name?: string;
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
  deadLetter?: string;
  expireInSeconds?: number;
}

/**
 * A pg-boss job as `fetch({ includeMetadata: true })` returns it: the fields every supported
 * major has (10, 11, 12). A handler that needs more casts `context.job` to its major's
 * `JobWithMetadata`.
 */
export interface PgBossJobOf<T> {
  id: string;
  name: string;
  data: T;
  state: string;
  priority: number;
  retryCount: number;
  retryLimit: number;
  expireInSeconds: number;
  createdOn: Date;
  startedOn: Date;
}

/** What creating and configuring queues needs of a `PgBoss`. */
export interface PgBossQueueAdmin {
  createQueue(name: string, options?: PgBossQueueSettings): Promise<void>;
  updateQueue(name: string, options?: PgBossQueueSettings): Promise<unknown>;
  getQueue(name: string): Promise<object | null>;
}

/** Completing a job, also through another database (the dedup store's transaction). */
export interface PgBossCompleter {
  complete(name: string, id: string, data?: object, options?: { db?: PgBossDb }): Promise<unknown>;
}

/** Failing a job: pg-boss retries it, or moves it to the dead letters. */
export interface PgBossFailer {
  fail(name: string, id: string, data?: object): Promise<unknown>;
}

/** Taking jobs, with their metadata. */
export interface PgBossFetcher {
  fetch<T>(name: string, options: { batchSize: number; includeMetadata: true }): Promise<PgBossJobOf<T>[]>;
}

/** Sending a job, and reading one back. */
export interface PgBossSender {
  send(name: string, data: object, options?: { id?: string }): Promise<string | null>;
  getJobById<T>(name: string, id: string): Promise<{ state: string; output?: unknown; data: T } | null>;
}
