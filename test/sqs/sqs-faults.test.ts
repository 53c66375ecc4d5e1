import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type QueuedDelivery } from 'webhook-cms-receiver';
import { sqsQueue } from 'webhook-cms-receiver/sqs';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { type ChildLines, childLines } from '../helpers/child-lines.js';
import { redisUrl, until } from '../queue/queue-helpers.js';
import { freshQueue, peek, queueCounts, sqsEndpoint } from './sqs-helpers.js';

// The fault matrix of queue mode on SQS: real worker processes (the built package) on fauxqs,
// sharing a Redis dedup store. For every row: every delivery answered 200 queued is processed,
// each effect happens once, and what fails for good reaches the dead-letter queue with its reason.
const script = fileURLToPath(new URL('./sqs-worker-process.mjs', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/sqs.js', import.meta.url)));
const ready = Boolean(built && sqsEndpoint && redisUrl);
const skip = ready ? '' : ' (skipped: needs SQS_ENDPOINT, REDIS_URL and `npx tsup` for dist/)';
const token = 'sqs-faults-token';

interface Worker extends ChildLines {
  child: ChildProcess;
  lines: string[];
}

describe.skipIf(!ready)(`SQS fault matrix (fauxqs, Redis, spawned workers)${skip}`, () => {
  const children: ChildProcess[] = [];
  const redises: Redis[] = [];
  afterEach(async () => {
    await Promise.all(
      children.splice(0).map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    await Promise.all(redises.splice(0).map((redis) => redis.quit().catch(() => {})));
  });

  async function rig(label: string, options: Parameters<typeof freshQueue>[1] = {}) {
    const q = await freshQueue(label, options);
    const prefix = `wcr-sqs-${label}-${randomUUID().slice(0, 8)}:`;
    const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    redises.push(redis);
    const receiver = createReceiver({
      token,
      queue: sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies }),
      dedup: memoryDedupStore(),
      logger: false,
    });
    const env = {
      SQS_ENDPOINT: sqsEndpoint!,
      QUEUE_URL: q.queueUrl,
      BUCKET: q.bucket,
      REDIS_URL: redisUrl!,
      PREFIX: prefix,
    };
    return {
      ...q,
      receiver,
      send: async (payload: object, deliveryId = randomUUID()) => {
        const answer = await receiver.handle(signDelivery({ token, payload, deliveryId }));
        return { status: answer.status, body: answer.body, deliveryId };
      },
      worker(extra: Record<string, string> = {}): Worker {
        const child = spawn(process.execPath, [script], {
          env: { ...process.env, ...env, ...extra },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        const lines: string[] = [];
        child.stdout!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
        return { child, lines, ...childLines(child, `sqs worker ${label}`) };
      },
      runs: async (id: string) => Number(await redis.get(`${prefix}runs:${id}`)),
      effects: () => redis.lrange(`${prefix}effects`, 0, -1),
      order: (articleId: string) => redis.lrange(`${prefix}order:${articleId}`, 0, -1),
    };
  }

  const alive = (w: Worker) => w.child.exitCode === null && w.child.signalCode === null;

  it('worker SIGKILL mid-job: the message reappears after its visibility timeout, waits out the dead claim without using attempts, completes once', async () => {
    // 2 attempts, a 2 s visibility timeout and a 6 s claim: the survivor meets the killed
    // worker's claim for about 4 s. Counting those receives as attempts dead-letters the delivery.
    const r = await rig('kill', { visibilityTimeout: 2 });
    const env = { ATTEMPTS: '2', LEASE_MS: '6000' };
    const workers = [r.worker(env), r.worker(env)];
    await Promise.all(workers.map((w) => w.waitFor(/^ready$/)));
    const { status, deliveryId: id } = await r.send(articleSyncPayload({ article: { slug: 'hang-once' } }));
    expect(status).toBe(200);
    const hanging = await Promise.any(workers.map((w, i) => w.waitFor(new RegExp(`^hanging ${id}$`)).then(() => i)));
    workers[hanging]!.child.kill('SIGKILL');
    await workers[hanging]!.exited;
    const survivor = workers[1 - hanging]!;
    await until('the effect', async () => (await r.effects()).includes(id), 40_000);
    await until('the message deleted', async () => (await queueCounts(r.sqs, r.queueUrl)).total === 0);
    expect(await r.effects()).toEqual([id]);
    expect(await r.runs(id)).toBe(2);
    expect(await peek(r.sqs, r.deadUrl)).toEqual([]);
    // It was deferred (a warning), never failed: no error line, no dead letter.
    expect(survivor.lines.some((line) => line.startsWith('log warn') && line.includes('held by another worker'))).toBe(
      true,
    );
    expect(survivor.lines.filter((line) => line.startsWith('log error') || line.startsWith('dead'))).toEqual([]);
    expect(alive(survivor)).toBe(true);
  }, 60_000);

  it('40 concurrent copies of one delivery, to the receiver and as 40 messages across two worker processes: one handler run', async () => {
    // 2 attempts and a 3 s handler: each copy meets the running one's claim several times,
    // in either process. Counting those receives as attempts dead-letters copies.
    const r = await rig('copies');
    const env = { CONCURRENCY: '4', ATTEMPTS: '2', SLOW_MS: '3000' };
    const workers = [r.worker(env), r.worker(env)];
    await Promise.all(workers.map((w) => w.waitFor(/^ready$/)));
    const id = randomUUID();
    const payload = articleSyncPayload({ article: { slug: 'slow' } });
    const answers = await Promise.all(Array.from({ length: 40 }, () => r.send(payload, id)));
    // A copy that meets another being enqueued gets 409, which the service retries.
    expect(answers.every(({ status }) => status === 200 || status === 409)).toBe(true);
    // A standard queue delivers at least once: the same delivery as 40 messages.
    const body = JSON.stringify(payload);
    const { body: _, ...envelope }: QueuedDelivery = {
      body,
      deliveryId: id,
      timestamp: payload.timestamp,
      event: 'article.sync',
      tokenIndex: 0,
      receivedAt: Date.now(),
    };
    await Promise.all(
      Array.from({ length: 40 }, () =>
        r.sqs.send(
          new SendMessageCommand({
            QueueUrl: r.queueUrl,
            MessageBody: body,
            MessageAttributes: { webhook: { DataType: 'String', StringValue: JSON.stringify(envelope) } },
          }),
        ),
      ),
    );
    await until('every message handled', async () => (await queueCounts(r.sqs, r.queueUrl)).total === 0, 60_000);
    expect(await r.runs(id)).toBe(1);
    expect(await r.effects()).toEqual([id]);
    expect(await peek(r.sqs, r.deadUrl)).toEqual([]);
    expect(workers.every(alive)).toBe(true);
  }, 90_000);

  it('poison jobs: a handler that always throws and a message that is no delivery are dead-lettered with their reason', async () => {
    // maxReceiveCount 5 > 3 attempts: the worker, not the redrive, dead-letters them.
    const r = await rig('poison', { maxReceiveCount: 5 });
    const worker = r.worker({ ATTEMPTS: '3' });
    await worker.waitFor(/^ready$/);
    const { deliveryId: id } = await r.send(articleSyncPayload({ article: { slug: 'poison' } }));
    await r.sqs.send(new SendMessageCommand({ QueueUrl: r.queueUrl, MessageBody: '{"not":"a delivery"}' }));
    await until('both dead letters', async () => (await queueCounts(r.sqs, r.deadUrl)).total === 2, 40_000);
    const letters = await peek(r.sqs, r.deadUrl);
    const failures = letters.map((m) => JSON.parse(m.MessageAttributes?.['webhook-failure']?.StringValue ?? '{}'));
    const poison = failures.find((f) => /always throws/.test(f.reason));
    expect(poison).toMatchObject({ reason: 'this handler always throws (run 3)', attempts: 3 });
    expect(failures.find((f) => f !== poison)?.reason).toMatch(
      /^invalid_payload: the message is not a delivery enqueued by sqsQueue/,
    );
    // The dead letter keeps the delivery: its body and envelope, for a replay.
    const letter = letters[failures.indexOf(poison)]!;
    expect(JSON.parse(letter.MessageAttributes!.webhook!.StringValue!)).toMatchObject({
      deliveryId: id,
      event: 'article.sync',
    });
    expect(await r.runs(id)).toBe(3);
    expect((await queueCounts(r.sqs, r.queueUrl)).total).toBe(0);
    expect(alive(worker)).toBe(true);
  }, 60_000);

  it('FIFO: each article in order across two workers, the delivery id deduplicates a second send', async () => {
    const r = await rig('fifo', { fifo: true });
    const articles = [randomUUID(), randomUUID()];
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const articleId of articles) {
        const payload = articleSyncPayload({ article: { id: articleId, slug: `ordered-${i}` } });
        const { status, deliveryId } = await r.send(payload);
        expect(status).toBe(200);
        sent.push(deliveryId);
      }
    }
    // The same delivery enqueued again past the receiver (a second receiver instance): SQS drops it.
    const queue = sqsQueue({ client: r.sqs, queueUrl: r.queueUrl, bodies: r.bodies });
    const again = articleSyncPayload({ article: { id: articles[0], slug: 'ordered-3' } });
    const delivery = {
      body: JSON.stringify(again),
      deliveryId: sent[0]!,
      timestamp: again.timestamp,
      event: 'article.sync',
      tokenIndex: 0,
      receivedAt: Date.now(),
    };
    await queue.enqueue(delivery, { signal: new AbortController().signal });
    expect((await queueCounts(r.sqs, r.queueUrl)).total).toBe(6);
    const workers = [r.worker({ CONCURRENCY: '4' }), r.worker({ CONCURRENCY: '4' })];
    await Promise.all(workers.map((w) => w.waitFor(/^ready$/)));
    await until('every delivery', async () => (await r.effects()).length === 6, 40_000);
    for (const articleId of articles) expect(await r.order(articleId)).toEqual(['ordered-0', 'ordered-1', 'ordered-2']);
  }, 60_000);
});
