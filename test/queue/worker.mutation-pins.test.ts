import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DeliveryStart,
  type DeliveryTrace,
  isJobFailure,
  type JobFailure,
  type JobResult,
  type JobSource,
  memoryDedupStore,
  type QueuedDelivery,
  type SourceJob,
  type SourceSettings,
  startWorker,
  WebhookError,
  type WorkerErrorInfo,
  withQueueMode,
} from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// The worker's decisions (retry, defer, dead-letter, what onError and the log learn) through a
// job source kept in memory: the JobSource interface is public, and this one is a complete,
// if tiny, engine. BullMQ and pg-boss run the same worker against real Redis and PostgreSQL in
// test/queue; this file lets the mutation run reach the worker without either.

const TOKEN = 'worker-pins-token-0123456789';

/** A job source whose jobs the test hands over one by one, recording what the worker told it. */
function memorySource() {
  let runner: ((job: SourceJob<{ id: string }>) => Promise<JobResult>) | undefined;
  let started: () => void = () => {};
  const startedOnce = new Promise<void>((resolve) => (started = resolve));
  const state = { settings: undefined as SourceSettings | undefined, closed: 0 };
  const source: JobSource<{ id: string }> = {
    start(run, settings) {
      runner = run;
      state.settings = settings;
      started();
    },
    async close() {
      state.closed++;
    },
  };
  const run = async (job: Omit<SourceJob<{ id: string }>, 'job'> & { job?: { id: string } }) => {
    await startedOnce;
    return settle(runner!({ job: { id: 'job-1' }, ...job }));
  };
  return { source, state, run };
}

/** A run's outcome: the job's result, or the JobFailure the source is told. */
async function settle(promise: Promise<JobResult>): Promise<{ result?: JobResult; failure?: JobFailure }> {
  try {
    return { result: await promise };
  } catch (error) {
    if (!isJobFailure(error)) throw error;
    return { failure: error };
  }
}

/** Deliveries as a real receiver in queue mode enqueues them. */
async function enqueued(payload: object = articleSyncPayload(), deliveryId = `d-${Math.random()}`) {
  const jobs: QueuedDelivery[] = [];
  const queue = withQueueMode({ enqueue: async (delivery: QueuedDelivery) => void jobs.push(delivery) });
  const receiver = createReceiver({ token: TOKEN, queue, logger: false });
  const answer = await receiver.handle(signDelivery({ token: TOKEN, payload: payload as never, deliveryId }));
  expect(answer.status).toBe(200);
  return jobs[0]!;
}

/** A structured logger (it has `child`), so each line arrives as its fields and its message. */
function recordingLogger() {
  const lines: Array<{ level: 'warn' | 'error'; message: string; fields: unknown }> = [];
  return {
    lines,
    logger: {
      child: () => {},
      warn: (fields: unknown, message: string) => void lines.push({ level: 'warn', message, fields }),
      error: (fields: unknown, message: string) => void lines.push({ level: 'error', message, fields }),
    },
  };
}

describe('startWorker through an in-memory job source', () => {
  it('completes a job with the handler’s published URL, the engine’s job in its context', async () => {
    const { source, state, run } = memorySource();
    const seen: unknown[] = [];
    const worker = startWorker(source, {
      handlers: {
        'article.sync': (_event, context) => {
          seen.push(context.job);
          return { publishedUrl: 'https://example.com/a' };
        },
      },
      concurrency: 3,
      retry: { attempts: 4 },
      logger: false,
    });
    await worker.ready;
    expect(state.settings).toMatchObject({ concurrency: 3, retry: { attempts: 4, initialDelayMs: 1000 } });
    expect(await run({ delivery: await enqueued(), attempt: 1, job: { id: 'j-7' } })).toEqual({
      result: { ok: true, published_url: 'https://example.com/a' },
    });
    expect(seen).toEqual([{ id: 'j-7' }]);
    await worker.close();
    expect(state.closed).toBe(1);
  });

  it('retries a throw with a jittered delay, then dead-letters the last attempt and tells onError', async () => {
    const { source, run } = memorySource();
    const told: Array<{ error: unknown; info: WorkerErrorInfo }> = [];
    const { lines, logger } = recordingLogger();
    const boom = new Error('the CMS is down');
    startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw boom;
        },
      },
      retry: { attempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 },
      onError: (error, info) => void told.push({ error, info: info as WorkerErrorInfo }),
      logger,
    });
    const delivery = await enqueued(articleSyncPayload(), 'retry-1');
    const first = (await run({ delivery, attempt: 1 })).failure!;
    expect(first).toMatchObject({ retry: true, deferred: false, message: 'the CMS is down' });
    expect(first.cause).toBe(boom);
    expect(first.delayMs).toBeGreaterThanOrEqual(500);
    expect(first.delayMs).toBeLessThanOrEqual(1000);
    const second = (await run({ delivery, attempt: 2 })).failure!;
    expect(second.delayMs).toBeGreaterThanOrEqual(1000);
    expect(second.delayMs).toBeLessThanOrEqual(2000);
    expect(told).toHaveLength(0);
    expect(lines.map((line) => line.message)).toEqual([
      expect.stringMatching(/^worker: article\.sync delivery retry-1 attempt 1 failed, retry in \d+ ms: /),
      expect.stringMatching(/attempt 2 failed, retry in \d+ ms: .*the CMS is down/),
    ]);
    expect(lines[0]!.fields).toMatchObject({ event: 'article.sync', deliveryId: 'retry-1', err: boom });
    const last = (await run({ delivery, attempt: 3 })).failure!;
    expect(last).toMatchObject({ retry: false, delayMs: 0, deferred: false });
    expect(told).toHaveLength(1);
    expect(told[0]!.error).toBe(boom);
    expect(told[0]!.info).toMatchObject({ attempt: 3, deadLettered: true, job: { id: 'job-1' } });
    expect(told[0]!.info.event?.deliveryId).toBe('retry-1');
  });

  it('a fatal error or a 4xx WebhookError is dead-lettered at once; delivery_in_progress is retried', async () => {
    const { source, run } = memorySource();
    const thrown: unknown[] = [
      Object.assign(new Error('bad article'), { fatal: true }),
      new WebhookError('invalid_payload', 'the handler refused it'),
      new WebhookError('delivery_in_progress', 'a copy runs'),
      Object.assign(new Error('not fatal'), { fatal: 'yes' }),
      new WebhookError('internal_error', 'a 500'),
      // An HTTP client's error with a 4xx status is the handler's own failure, retried like any other.
      Object.assign(new Error('Not Found'), { status: 404 }),
    ];
    const told: unknown[] = [];
    let next = 0;
    startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw thrown[next++];
        },
      },
      onError: (error) => void told.push(error),
      logger: false,
    });
    const delivery = await enqueued();
    const verdicts = [];
    for (let i = 0; i < thrown.length; i++) verdicts.push((await run({ delivery, attempt: 1 })).failure!.retry);
    expect(verdicts).toEqual([false, false, true, true, true, true]);
    expect(told).toEqual([thrown[0], thrown[1]]);
  });

  it('a job that is not a delivery is dead-lettered with no event; the handler never runs', async () => {
    const { source, run } = memorySource();
    const told: Array<{ error: WebhookError; info: WorkerErrorInfo }> = [];
    let calls = 0;
    startWorker(source, {
      handlers: { 'article.sync': () => void calls++, test: () => void calls++ },
      onError: (error, info) => void told.push({ error: error as WebhookError, info: info as WorkerErrorInfo }),
      logger: false,
    });
    const good = await enqueued();
    const bad: unknown[] = [
      undefined,
      { ...good, body: 5 },
      { ...good, deliveryId: 42 },
      { ...good, body: '{not json' },
    ];
    for (const delivery of bad) {
      const { failure } = await run({ delivery: delivery as QueuedDelivery, attempt: 1 });
      expect(failure).toMatchObject({ retry: false });
    }
    expect(calls).toBe(0);
    expect(told.map(({ error }) => [error.code, error.reason])).toEqual([
      ['invalid_payload', 'the job is not a delivery enqueued by createReceiver({ queue })'],
      ['invalid_payload', 'the job is not a delivery enqueued by createReceiver({ queue })'],
      ['invalid_payload', 'the job is not a delivery enqueued by createReceiver({ queue })'],
      ['invalid_payload', "the job's body is not valid JSON"],
    ]);
    expect(told.every(({ info }) => info.event === null && info.deadLettered && info.attempt === 1)).toBe(true);
  });

  it('rebuilds the event with its delivery id and token index; a null id and a missing index are allowed', async () => {
    const { source, run } = memorySource();
    const events: Array<{ deliveryId: string | null; tokenIndex: number }> = [];
    startWorker(source, {
      handlers: { test: (event) => void events.push({ deliveryId: event.deliveryId, tokenIndex: event.tokenIndex }) },
      logger: false,
    });
    const delivery = await enqueued(testPayload(), 'ids-1');
    await run({ delivery: { ...delivery, tokenIndex: 2 }, attempt: 1 });
    const { tokenIndex: _, ...withoutIndex } = delivery;
    await run({ delivery: { ...withoutIndex, deliveryId: null } as QueuedDelivery, attempt: 1 });
    await run({ delivery: { ...delivery, tokenIndex: '1' as never }, attempt: 1 });
    expect(events).toEqual([
      { deliveryId: 'ids-1', tokenIndex: 2 },
      { deliveryId: null, tokenIndex: 0 },
      { deliveryId: 'ids-1', tokenIndex: 0 },
    ]);
  });

  it('rebuilds the tenant a tenant-mode receiver enqueued, frozen, and refuses a tenant that is not a non-empty string', async () => {
    const jobs: QueuedDelivery[] = [];
    const queue = withQueueMode({ enqueue: async (delivery: QueuedDelivery) => void jobs.push(delivery) });
    const receiver = createReceiver({ tenants: () => ({ id: 'site-a', token: TOKEN }), queue, logger: false });
    const answer = await receiver.handle(signDelivery({ token: TOKEN, payload: testPayload(), deliveryId: 't-1' }));
    expect(answer.status).toBe(200);
    expect(jobs[0]!.tenant).toBe('site-a');
    const { source, run } = memorySource();
    const tenants: unknown[] = [];
    const refused: string[] = [];
    startWorker(source, {
      handlers: { test: (event) => void tenants.push(event.tenant) },
      onError: (error) => void refused.push((error as WebhookError).code),
      logger: false,
    });
    await run({ delivery: jobs[0]!, attempt: 1 });
    const { tenant: _, ...single } = jobs[0]!;
    await run({ delivery: single as QueuedDelivery, attempt: 1 });
    expect(tenants).toEqual([{ id: 'site-a' }, undefined]);
    expect(Object.isFrozen(tenants[0])).toBe(true);
    for (const tenant of ['', 5, null]) {
      const { failure } = await run({ delivery: { ...jobs[0]!, tenant } as never, attempt: 1 });
      expect(failure).toMatchObject({ retry: false });
    }
    expect(refused).toEqual(['invalid_payload', 'invalid_payload', 'invalid_payload']);
    expect(tenants).toHaveLength(2);
  });

  it('a run past the attempts (earlier runs lapsed) is dead-lettered without running the handler', async () => {
    const { source, run } = memorySource();
    const told: Array<{ error: Error; info: WorkerErrorInfo }> = [];
    let calls = 0;
    startWorker(source, {
      handlers: { 'article.sync': () => void calls++ },
      retry: { attempts: 3 },
      onError: (error, info) => void told.push({ error: error as Error, info: info as WorkerErrorInfo }),
      logger: false,
    });
    const delivery = await enqueued();
    expect((await run({ delivery, attempt: 3 })).result).toEqual({ ok: true });
    expect((await run({ delivery, attempt: 4 })).failure).toMatchObject({ retry: false });
    expect(calls).toBe(1);
    expect(told).toHaveLength(1);
    expect(told[0]!.error.message).toBe(
      'run 4 of a job allowed 3 attempts: earlier runs lapsed (a worker killed or stalled mid-job) and count as attempts',
    );
    expect(told[0]!.info).toMatchObject({ attempt: 4, deadLettered: true });
    expect(told[0]!.info.event?.name).toBe('article.sync');
  });

  it('a delivery another worker holds is deferred, not counted as an attempt, its delay growing with deferrals', async () => {
    const dedup = memoryDedupStore();
    const holder = memorySource();
    const other = memorySource();
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const told: unknown[] = [];
    startWorker(holder.source, {
      handlers: {
        'article.sync': () =>
          new Promise<void>((resolve) => {
            release = resolve;
            entered();
          }),
      },
      dedup,
      logger: false,
    });
    const { lines, logger } = recordingLogger();
    startWorker(other.source, {
      handlers: { 'article.sync': () => {} },
      dedup,
      retry: { attempts: 3, initialDelayMs: 1000, maxDelayMs: 1_000_000 },
      onError: (error) => void told.push(error),
      logger,
    });
    const delivery = await enqueued(articleSyncPayload(), 'held-1');
    const held = holder.run({ delivery, attempt: 1 });
    await inside;
    const first = (await other.run({ delivery, attempt: 1 })).failure!;
    expect(first).toMatchObject({
      retry: true,
      deferred: true,
      message: "another worker holds this delivery (a copy running, or a stopped worker's claim)",
    });
    expect(first.delayMs).toBeGreaterThanOrEqual(500);
    expect(first.delayMs).toBeLessThanOrEqual(1000);
    // The attempt stays where it was; the deferrals stretch the delay (attempt 3 of 3 is not dead-lettered).
    const later = (await other.run({ delivery, attempt: 3, deferrals: 4 })).failure!;
    expect(later).toMatchObject({ retry: true, deferred: true });
    expect(later.delayMs).toBeGreaterThanOrEqual(32_000);
    expect(later.delayMs).toBeLessThanOrEqual(64_000);
    expect(told).toHaveLength(0);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'warn', fields: { event: 'article.sync', deliveryId: 'held-1' } });
    expect(lines[0]!.message).toContain('article.sync delivery held-1 is held by another worker');
    expect(lines[0]!.message).toMatch(/deferred \d+ ms, not counted as an attempt$/);
    release();
    expect((await held).result).toEqual({ ok: true });
    expect((await other.run({ delivery, attempt: 2 })).result).toEqual({ ok: true, duplicate: true });
  });

  it('without onError, a dead-lettered job is logged as an error naming the fix', async () => {
    const { source, run } = memorySource();
    const { lines, logger } = recordingLogger();
    startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw new WebhookError('invalid_payload', 'no title');
        },
        test: () => {
          throw new Error('test handler failed');
        },
      },
      retry: { attempts: 2 },
      logger,
    });
    const delivery = await enqueued(articleSyncPayload(), 'logged-1');
    await run({ delivery, attempt: 2 });
    await run({ delivery: { ...delivery, body: 'x' }, attempt: 1 });
    const anonymous = { ...(await enqueued(testPayload())), deliveryId: null };
    await run({ delivery: anonymous, attempt: 1 });
    await run({ delivery: anonymous, attempt: 2 });
    expect(lines.map(({ level, message }) => [level, message])).toEqual([
      [
        'error',
        'worker: article.sync delivery logged-1 failed for good on attempt 2 and was dead-lettered: ' +
          'invalid_payload: no title (pass onError to startWorker to handle this)',
      ],
      [
        'error',
        "worker: a job failed for good on attempt 1 and was dead-lettered: invalid_payload: the job's body is not valid JSON (pass onError to startWorker to handle this)",
      ],
      [
        'warn',
        expect.stringMatching(
          /^worker: test delivery \(no delivery id\) attempt 1 failed, retry in \d+ ms: Error: test handler failed$/,
        ),
      ],
      [
        'error',
        'worker: test delivery (no delivery id) failed for good on attempt 2 and was dead-lettered: Error: test handler failed ' +
          '(stack logged with attempt 1) (pass onError to startWorker to handle this)',
      ],
    ]);
    expect(lines[0]!.fields).toMatchObject({ event: 'article.sync', deliveryId: 'logged-1' });
    expect(lines[1]!.fields).toMatchObject({ event: undefined, deliveryId: undefined });
  });

  it('an onError that throws is logged, and the job is still dead-lettered', async () => {
    const { source, run } = memorySource();
    const { lines, logger } = recordingLogger();
    startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw Object.assign(new Error('fatal'), { fatal: true });
        },
      },
      onError: () => {
        throw new Error('hook bug');
      },
      logger,
    });
    expect((await run({ delivery: await enqueued(), attempt: 1 })).failure).toMatchObject({ retry: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toContain('the onError hook threw; the job went on as if it had not.');
    expect((lines[0]!.fields as { err: Error }).err.message).toBe('hook bug');
  });

  it('the engine taking the job back mid-run aborts the handler’s signal', async () => {
    const { source, run } = memorySource();
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    startWorker(source, {
      handlers: {
        'article.sync': (_event, { signal }) =>
          new Promise<void>((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason));
            entered();
          }),
      },
      logger: false,
    });
    const engine = new AbortController();
    const running = run({ delivery: await enqueued(), attempt: 1, signal: engine.signal });
    await inside;
    engine.abort();
    const { failure } = await running;
    expect(failure).toMatchObject({ retry: true, message: 'the job engine took the job back (its lock was lost)' });
  });

  it('a job the engine took back before it ran starts with its signal aborted', async () => {
    const { source, run } = memorySource();
    const seen: Array<{ aborted: boolean; reason: unknown }> = [];
    startWorker(source, {
      handlers: {
        'article.sync': (_event, { signal }) => void seen.push({ aborted: signal.aborted, reason: signal.reason }),
      },
      logger: false,
    });
    const engine = new AbortController();
    engine.abort();
    await run({ delivery: await enqueued(), attempt: 1, signal: engine.signal });
    expect(seen).toEqual([
      { aborted: true, reason: new Error('the job engine took the job back (its lock was lost)') },
    ]);
  });

  it('close() waits for the jobs still running; a source that fails to start rejects ready and is logged', async () => {
    const { source, run, state } = memorySource();
    let finish: () => void = () => {};
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const worker = startWorker(source, {
      handlers: {
        'article.sync': () =>
          new Promise<void>((resolve) => {
            finish = resolve;
            entered();
          }),
      },
      logger: false,
    });
    const job = run({ delivery: await enqueued(), attempt: 1 });
    await inside;
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    expect(worker.close()).toBe(worker.close());
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.closed).toBe(1);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(closed).toBe(true);
    expect((await job).result).toEqual({ ok: true });

    const { lines, logger } = recordingLogger();
    const broken = startWorker(
      {
        start: () => Promise.reject(new Error('no engine')),
        close: async () => {},
      },
      { handlers: {}, logger },
    );
    await expect(broken.ready).rejects.toThrow('no engine');
    expect(lines).toEqual([
      { level: 'error', message: 'worker: the job source failed to start', fields: { err: new Error('no engine') } },
    ]);
    await broken.close();
  });

  it('a store that fails to record a finished job is told to onError, not dead-lettered', async () => {
    const { source, run } = memorySource();
    const store = memoryDedupStore();
    const told: Array<{ error: Error; info: WorkerErrorInfo }> = [];
    startWorker(source, {
      handlers: { 'article.sync': () => {} },
      dedup: {
        claim: (claim) => store.claim(claim),
        complete: () => {
          throw new Error('disk full');
        },
        release: (claim, lease) => store.release(claim, lease),
      },
      onError: (error, info) => void told.push({ error: error as Error, info: info as WorkerErrorInfo }),
      logger: false,
    });
    expect((await run({ delivery: await enqueued(articleSyncPayload(), 'unrecorded'), attempt: 1 })).result).toEqual({
      ok: true,
    });
    expect(told).toHaveLength(1);
    expect(told[0]!.error.message).toBe('the dedup store failed to record the delivery: Error: disk full');
    expect(told[0]!.info).toMatchObject({ attempt: 1, deadLettered: false });
    expect(told[0]!.info.event?.deliveryId).toBe('unrecorded');
  });

  it('traces each job as a process delivery from the carrier it was enqueued with; a throwing instrumentation is skipped', async () => {
    const calls: unknown[] = [];
    const instrumentation = {
      startDelivery: (start: DeliveryStart): DeliveryTrace => {
        calls.push(['start', start]);
        return {
          verifying: () => void calls.push(['verifying']),
          verified: (event) => void calls.push(['verified', event.deliveryId]),
          runHandler: (work) => {
            calls.push(['runHandler']);
            return work();
          },
          end: (end) => void calls.push(['end', end]),
        };
      },
    };
    const traced = memorySource();
    startWorker(traced.source, { handlers: { 'article.sync': () => {} }, instrumentation, logger: false });
    const delivery = { ...(await enqueued(articleSyncPayload(), 'traced-1')), trace: { traceparent: 'x' } };
    expect((await traced.run({ delivery, attempt: 1 })).result).toEqual({ ok: true });
    expect(calls).toEqual([
      ['start', { kind: 'process', receivedAt: delivery.receivedAt, carrier: { traceparent: 'x' } }],
      ['verified', 'traced-1'],
      ['runHandler'],
      ['end', expect.objectContaining({ outcome: 'processed', status: 200 })],
    ]);

    const broken = memorySource();
    let ran = 0;
    startWorker(broken.source, {
      handlers: { 'article.sync': () => void ran++ },
      instrumentation: {
        startDelivery: () => {
          throw new Error('exporter down');
        },
      },
      logger: false,
    });
    expect((await broken.run({ delivery, attempt: 1 })).result).toEqual({ ok: true });
    const declined = memorySource();
    startWorker(declined.source, {
      handlers: { 'article.sync': () => void ran++ },
      instrumentation: { startDelivery: () => undefined },
      logger: false,
    });
    expect((await declined.run({ delivery, attempt: 1 })).result).toEqual({ ok: true });
    expect(ran).toBe(2);
  });

  it('hands the source a warn that writes to the worker’s logger', async () => {
    const { source, state } = memorySource();
    const { lines, logger } = recordingLogger();
    const worker = startWorker(source, { handlers: {}, logger });
    await worker.ready;
    state.settings!.warn!('lost the connection; reconnecting');
    expect(lines).toEqual([{ level: 'warn', message: 'lost the connection; reconnecting', fields: {} }]);
  });

  it('with a transactional store, completes the job inside the handler’s transaction with its result', async () => {
    const { source, run } = memorySource();
    const tx = { id: 'tx-1' };
    const completed: unknown[] = [];
    const results = [
      { publishedUrl: 'https://e.com/a' },
      { published_url: 'https://e.com/b' },
      { publishedUrl: 5 },
      undefined,
    ];
    let next = 0;
    startWorker(source, {
      handlers: { 'article.sync': () => results[next++] },
      dedup: {
        claim: () => ({ state: 'claimed', lease: '1' }),
        complete: () => {},
        release: () => {},
        transact: async (_claim, work) => ({ state: 'committed', answer: await work(tx) }),
      },
      logger: false,
    });
    const completeIn = async (into: unknown, result: JobResult) => void completed.push([into, result]);
    for (let i = 0; i < results.length; i++) {
      await run({ delivery: await enqueued(), attempt: 1, completeIn });
    }
    expect(completed).toEqual([
      [tx, { ok: true, published_url: 'https://e.com/a' }],
      [tx, { ok: true, published_url: 'https://e.com/b' }],
      [tx, { ok: true }],
      [tx, { ok: true }],
    ]);
    // A completion that fails rolls the job back: it is retried with the completion's error.
    const refused = new Error('the job row is gone');
    const { failure } = await run({
      delivery: await enqueued(),
      attempt: 1,
      completeIn: async () => {
        throw refused;
      },
    });
    expect(failure).toMatchObject({ retry: true });
    expect(failure!.cause).toBe(refused);
  });

  it('a job for an event with no handler completes; JobFailure names itself and its WebhookError cause', async () => {
    const { source, run } = memorySource();
    startWorker(source, {
      handlers: {
        'article.sync': () => {
          throw new WebhookError('delivery_in_progress', 'a copy runs');
        },
      },
      logger: false,
    });
    expect((await run({ delivery: await enqueued(testPayload()), attempt: 1 })).result).toEqual({ ok: true });
    const { failure } = await run({ delivery: await enqueued(), attempt: 1 });
    expect(failure!.name).toBe('JobFailure');
    expect(failure!.message).toBe('delivery_in_progress: a copy runs');
    for (const value of [null, undefined, 'JobFailure', new Error('x'), {}]) expect(isJobFailure(value)).toBe(false);
  });

  it('a store that cannot claim fails the job with its WebhookError, retried', async () => {
    const { source, run } = memorySource();
    const { lines, logger } = recordingLogger();
    let ran = 0;
    startWorker(source, {
      handlers: { 'article.sync': () => void ran++ },
      dedup: {
        claim: () => {
          throw new Error('redis down');
        },
        complete: () => {},
        release: () => {},
      },
      logger,
    });
    const { failure } = await run({ delivery: await enqueued(articleSyncPayload(), 'unclaimed'), attempt: 1 });
    expect(ran).toBe(0);
    expect(failure).toMatchObject({ retry: true, deferred: false });
    expect(failure!.cause).toBeInstanceOf(WebhookError);
    const { code, reason } = failure!.cause as WebhookError;
    expect(failure!.message).toBe(`${code}: ${reason}`);
    expect(reason).toContain('redis down');
    expect(lines.at(-1)!.message).toMatch(new RegExp(`attempt 1 failed, retry in \\d+ ms: ${code}: `));
  });

  it('a fault of the worker itself (not a JobFailure) is still a failure the engine retries', async () => {
    const { source, run } = memorySource();
    startWorker(source, {
      handlers: {
        get 'article.sync'(): never {
          throw new Error('a handlers object whose getter throws');
        },
      },
      retry: { initialDelayMs: 1000 },
      logger: false,
    });
    const { failure } = await run({ delivery: await enqueued(), attempt: 1 });
    expect(failure).toMatchObject({ retry: true, message: 'a handlers object whose getter throws' });
    expect(failure!.delayMs).toBeGreaterThanOrEqual(500);
    expect(failure!.delayMs).toBeLessThanOrEqual(1000);
  });

  it('completeIn is used only inside a transaction, and a transaction needs no completeIn', async () => {
    const plain = memorySource();
    const completed: unknown[] = [];
    startWorker(plain.source, { handlers: { 'article.sync': () => {} }, dedup: memoryDedupStore(), logger: false });
    const completeIn = async (tx: unknown) => void completed.push(tx);
    expect((await plain.run({ delivery: await enqueued(), attempt: 1, completeIn })).result).toEqual({ ok: true });
    expect(completed).toEqual([]);
    const transactional = memorySource();
    startWorker(transactional.source, {
      handlers: { 'article.sync': () => {} },
      dedup: {
        claim: () => ({ state: 'claimed', lease: '1' }),
        complete: () => {},
        release: () => {},
        transact: async (_claim, work) => ({ state: 'committed', answer: await work({ id: 'tx' }) }),
      },
      logger: false,
    });
    expect((await transactional.run({ delivery: await enqueued(), attempt: 1 })).result).toEqual({ ok: true });
  });

  it('without onError, a problem that did not fail the job is logged as one', async () => {
    const { source, run } = memorySource();
    const { lines, logger } = recordingLogger();
    const store = memoryDedupStore();
    startWorker(source, {
      handlers: { 'article.sync': () => {} },
      dedup: {
        claim: (claim) => store.claim(claim),
        complete: () => {
          throw new Error('disk full');
        },
        release: (claim, lease) => store.release(claim, lease),
      },
      logger,
    });
    await run({ delivery: await enqueued(articleSyncPayload(), 'problem-1'), attempt: 1 });
    expect(lines.map((line) => line.message)).toEqual([
      'worker: article.sync delivery problem-1 had a problem: Error: the dedup store failed to record the delivery: ' +
        'Error: disk full (pass onError to startWorker to handle this)',
    ]);
  });

  it('refuses a source or options it cannot use, naming the fix', () => {
    const { source } = memorySource();
    expect(() => startWorker({} as never, { handlers: {} })).toThrow(
      'startWorker: source must be a JobSource, such as bullmqSource({ queueName, connection }).',
    );
    const sourceFix = 'startWorker: source must be a JobSource';
    expect(() => startWorker({ start() {} } as never, { handlers: {} })).toThrow(sourceFix);
    expect(() => startWorker({ close: async () => {} } as never, { handlers: {} })).toThrow(sourceFix);
    expect(() => startWorker(undefined as never, { handlers: {} })).toThrow(sourceFix);
    expect(() => startWorker(source, null as never)).toThrow('startWorker needs { handlers }');
    expect(() => startWorker(source, undefined as never)).toThrow('startWorker needs { handlers }');
    expect(() => startWorker(source, { handlers: 'x' as never })).toThrow('startWorker needs { handlers }');
    expect(() => startWorker(source, { handlers: {}, ordering: true })).toThrow(
      'startWorker: ordering: true needs a dedup store shared by the workers (dedup: …).',
    );
    expect(() => startWorker(source, { handlers: {}, concurrency: 0 })).toThrow('startWorker: concurrency');
  });
});
