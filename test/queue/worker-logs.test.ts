import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  isJobFailure,
  type JobResult,
  type JobSource,
  type QueuedDelivery,
  type SourceJob,
  startWorker,
  withQueueMode,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// What a job that keeps failing writes to the log (issue 46: its whole stack on each of 10
// attempts): the stack once, with the first failed attempt, then one line per attempt.

const TOKEN = 'worker-logs-token-0123456789';

/** A job source in memory: the test runs each attempt of one job itself. */
function memorySource() {
  let runner: ((job: SourceJob<{ id: string }>) => Promise<JobResult>) | undefined;
  const source: JobSource<{ id: string }> = {
    start(run) {
      runner = run;
    },
    async close() {},
  };
  const attempt = async (delivery: QueuedDelivery, attempt: number) => {
    try {
      await runner!({ delivery, job: { id: 'job-1' }, attempt });
    } catch (error) {
      if (!isJobFailure(error)) throw error;
    }
  };
  return { source, attempt };
}

async function enqueued(): Promise<QueuedDelivery> {
  const jobs: QueuedDelivery[] = [];
  const receiver = createReceiver({
    token: TOKEN,
    queue: withQueueMode({ enqueue: async (delivery: QueuedDelivery) => void jobs.push(delivery) }),
    logger: false,
  });
  await receiver.handle(signDelivery({ token: TOKEN, payload: articleSyncPayload(), deliveryId: 'always-fails' }));
  return jobs[0]!;
}

const failing = () => {
  throw new Error('the CMS is down');
};

describe('a job that keeps failing, in the log', () => {
  it('console: the stack with attempt 1, one line for each later attempt and for the dead letter', async () => {
    const { source, attempt } = memorySource();
    const lines: string[] = [];
    const worker = startWorker(source, {
      handlers: { 'article.sync': failing },
      retry: { attempts: 4, initialDelayMs: 10 },
      logger: { warn: (line: string) => void lines.push(line), error: (line: string) => void lines.push(line) },
    });
    await worker.ready;
    const delivery = await enqueued();
    for (let n = 1; n <= 4; n++) await attempt(delivery, n);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/attempt 1 failed, retry in \d+ ms: .*the CMS is down[\s\S]*\n\s+at /);
    for (const line of lines.slice(1)) expect(line).not.toContain('\n');
    expect(lines[1]).toMatch(
      /attempt 2 failed, retry in \d+ ms: Error: the CMS is down \(stack logged with attempt 1\)$/,
    );
    expect(lines[3]).toMatch(/failed for good on attempt 4 and was dead-lettered: Error: the CMS is down/);
    expect(lines[3]).toContain('(stack logged with attempt 1)');
  });

  it('a structured logger: err (with its stack) on attempt 1 only', async () => {
    const { source, attempt } = memorySource();
    const fields: Array<Record<string, unknown>> = [];
    const record = (field: Record<string, unknown>) => void fields.push(field);
    const worker = startWorker(source, {
      handlers: { 'article.sync': failing },
      retry: { attempts: 3, initialDelayMs: 10 },
      logger: { child: () => {}, warn: record, error: record } as never,
    });
    await worker.ready;
    const delivery = await enqueued();
    for (let n = 1; n <= 3; n++) await attempt(delivery, n);
    expect(fields.map((field) => field.err instanceof Error)).toEqual([true, false, false]);
    expect(fields.map((field) => field.deliveryId)).toEqual(['always-fails', 'always-fails', 'always-fails']);
  });

  it('an error that dead-letters on its first attempt (fatal) still logs its stack', async () => {
    const { source, attempt } = memorySource();
    const lines: string[] = [];
    const worker = startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw Object.assign(new Error('never works'), { fatal: true });
        },
      },
      logger: { warn: (line: string) => void lines.push(line), error: (line: string) => void lines.push(line) },
    });
    await worker.ready;
    await attempt(await enqueued(), 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/failed for good on attempt 1 and was dead-lettered: Error: never works[\s\S]*\n\s+at /);
  });
});
