import { randomUUID } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, expect, it } from 'vitest';
import {
  createReceiver,
  DEFAULT_MAX_BODY_BYTES,
  memoryDedupStore,
  type QueuedDelivery,
  type QueueWorker,
  startWorker,
  type WebhookHandlers,
  type WorkerContext,
} from 'webhook-cms-receiver';
import { SQS_ENVELOPE_RESERVE_BYTES, SQS_MESSAGE_MAX_BYTES, sqsQueue, sqsSource } from 'webhook-cms-receiver/sqs';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { until } from '../queue/queue-helpers.js';
import { describeWithSqs, freshQueue, peek, queueCounts } from './sqs-helpers.js';

const token = 'sqs-test-token';
const workers: QueueWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});

/** A delivery as the receiver enqueues it, with a body of exactly `bytes` UTF-8 bytes. */
function deliveryOfSize(bytes: number, deliveryId: string = randomUUID()): QueuedDelivery {
  const payload = articleSyncPayload({ article: { slug: 'sized', content_html: '' } });
  const base = JSON.stringify(payload);
  const body = base.replace('"content_html":""', `"content_html":"${'x'.repeat(bytes - Buffer.byteLength(base))}"`);
  return {
    body,
    deliveryId,
    timestamp: payload.timestamp,
    event: 'article.sync',
    tokenIndex: 0,
    receivedAt: 1_700_000_000_000,
  };
}

/** The message's size as SQS counts it for this delivery sent inline: body, and the `webhook` attribute's name, type and value. */
function inlineSize(delivery: QueuedDelivery): number {
  const { body, ...envelope } = delivery;
  return Buffer.byteLength(body) + 'webhook'.length + 'String'.length + Buffer.byteLength(JSON.stringify(envelope));
}

describeWithSqs('SQS queue mode (fauxqs)', () => {
  it('construction: without bodies, a maxBodyBytes that cannot fit a message throws naming the option and the fix', () => {
    const client = new SQSClient({ region: 'us-east-1' });
    const queueUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks';
    expect(() => sqsQueue({ client, queueUrl })).toThrow(/maxBodyBytes is 10485760 bytes.*bodies: \{ client/);
    const fits = SQS_MESSAGE_MAX_BYTES - SQS_ENVELOPE_RESERVE_BYTES;
    expect(() => sqsQueue({ client, queueUrl, maxBodyBytes: fits + 1 })).toThrow(new RegExp(`maxBodyBytes: ${fits}`));
    expect(() => sqsQueue({ client, queueUrl, maxBodyBytes: fits })).not.toThrow();
    expect(() => sqsQueue({ client, queueUrl, maxMessageBytes: 2_000_000 })).toThrow(/maxMessageBytes/);
  });

  it('receiver to worker: answered queued, handled once with the typed event, the message deleted', async () => {
    const q = await freshQueue('roundtrip');
    const dedup = memoryDedupStore();
    const queue = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies });
    const receiver = createReceiver({ token, queue, dedup });
    const seen: string[] = [];
    const handlers: WebhookHandlers<WorkerContext> = {
      'article.sync': (event, { job }) => {
        seen.push(`${event.article.slug} ${event.deliveryId} ${(job as { messageId: string }).messageId.length > 0}`);
      },
    };
    const id = randomUUID();
    const signed = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'hello' } }), deliveryId: id });
    expect((await receiver.handle(signed)).body).toEqual({ ok: true, queued: true });
    expect((await receiver.handle(signed)).body).toEqual({ ok: true, queued: true, duplicate: true });
    workers.push(
      startWorker(sqsSource({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies, waitTimeSeconds: 1 }), {
        handlers,
        logger: false,
      }),
    );
    await workers[0]!.ready;
    await until('the handler', () => seen.length === 1);
    expect(seen).toEqual([`hello ${id} true`]);
    await until('the message deleted', async () => (await queueCounts(q.sqs, q.queueUrl)).total === 0);
    expect(await queue.stats!()).toEqual({ depth: 0, oldestAgeSeconds: undefined });
  });

  it('message size at the limit: exactly 256 KiB goes inline, one byte more goes to S3 (fauxqs enforces the limit)', async () => {
    const q = await freshQueue('limit', { maxMessageSize: SQS_MESSAGE_MAX_BYTES });
    const queue = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies });
    const signal = new AbortController().signal;
    const probe = deliveryOfSize(1000);
    const overhead = inlineSize(probe) - 1000;
    const atLimit = deliveryOfSize(SQS_MESSAGE_MAX_BYTES - overhead, probe.deliveryId!);
    expect(inlineSize(atLimit)).toBe(SQS_MESSAGE_MAX_BYTES);
    const overLimit = deliveryOfSize(SQS_MESSAGE_MAX_BYTES - overhead + 1, probe.deliveryId!);
    await queue.enqueue(atLimit, { signal });
    await queue.enqueue(overLimit, { signal });
    const messages = await peek(q.sqs, q.queueUrl);
    expect(
      messages.map((m) => (m.Body === atLimit.body ? 'inline' : m.Body?.startsWith('s3://') ? 's3' : 'other')),
    ).toEqual(['inline', 's3']);
    const ref = JSON.parse(messages[1]!.MessageAttributes!.webhook!.StringValue!).bodyRef;
    expect(ref).toMatchObject({
      bucket: q.bucket,
      bytes: Buffer.byteLength(overLimit.body),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const object = await q.s3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    expect(await object.Body!.transformToString()).toBe(overLimit.body);
    // Without bodies, the one byte more is refused before SQS is asked, with the fix.
    const small = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, maxBodyBytes: 1000 });
    await expect(small.enqueue(overLimit, { signal })).rejects.toThrow(
      /does not fit an SQS message of 262144 bytes.*bodies/,
    );
  });

  it('a 10 MiB body through S3: checked by SHA-256 when read, deleted when the delivery completes; a tampered object is refused', async () => {
    const q = await freshQueue('large');
    const queue = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies });
    const signal = new AbortController().signal;
    const good = deliveryOfSize(DEFAULT_MAX_BODY_BYTES);
    const tampered = deliveryOfSize(300_000);
    await queue.enqueue(good, { signal });
    await queue.enqueue(tampered, { signal });
    // Change the second object's bytes, keeping its size: only the SHA-256 can tell.
    const [, second] = await peek(q.sqs, q.queueUrl, 0);
    const ref = JSON.parse(second!.MessageAttributes!.webhook!.StringValue!).bodyRef;
    await q.s3.send(
      new PutObjectCommand({ Bucket: ref.bucket, Key: ref.key, Body: tampered.body.replace('sized', 'sizeD') }),
    );
    const runs: Array<[string, number]> = [];
    const dead: string[] = [];
    workers.push(
      startWorker(sqsSource({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies, waitTimeSeconds: 1 }), {
        handlers: { 'article.sync': (event) => void runs.push([event.deliveryId!, event.article.content_html.length]) },
        logger: false,
        onError: (_error, info) => info.deadLettered && dead.push(info.event?.deliveryId ?? ''),
      }),
    );
    await until(
      'the large delivery and the dead letter',
      async () => runs.length === 1 && (await peek(q.sqs, q.deadUrl, 0)).length === 1,
      30_000,
    );
    expect(runs).toEqual([[good.deliveryId, JSON.parse(good.body).article.content_html.length]]);
    const [letter] = await peek(q.sqs, q.deadUrl, 0);
    expect(JSON.parse(letter!.MessageAttributes!['webhook-failure']!.StringValue!).reason).toMatch(
      /body could not be read back from S3: the S3 object .* is not the body the message refers to \(size or SHA-256 differ\)/,
    );
    // The completed delivery's object is gone; the dead letter's is kept for a replay.
    await until('the completed body deleted', async () => {
      const { Contents = [] } = await q.s3.send(new ListObjectsV2Command({ Bucket: q.bucket }));
      return Contents.length === 1 && Contents[0]!.Key === ref.key;
    });
  }, 60_000);
  it('a copy of a large message that comes after its delivery completed (its S3 body deleted) is recognised as done, not dead-lettered', async () => {
    const q = await freshQueue('gone');
    const queue = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies });
    const large = deliveryOfSize(400_000);
    await queue.enqueue(large, { signal: new AbortController().signal });
    const [message] = await peek(q.sqs, q.queueUrl, 0);
    const dedup = memoryDedupStore();
    const runs: string[] = [];
    const options = {
      handlers: { 'article.sync': (event: { deliveryId: string | null }) => void runs.push(event.deliveryId!) },
      dedup,
      logger: false as const,
    };
    workers.push(
      startWorker(
        sqsSource({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies, dedup, waitTimeSeconds: 1 }),
        options,
      ),
    );
    await until('the delivery', async () => runs.length === 1 && (await queueCounts(q.sqs, q.queueUrl)).total === 0);
    // SQS delivers at least once: the same message again, after the run that deleted its body.
    await q.sqs.send(
      new SendMessageCommand({
        QueueUrl: q.queueUrl,
        MessageBody: message!.Body!,
        MessageAttributes: message!.MessageAttributes,
      }),
    );
    await until('the copy handled', async () => (await queueCounts(q.sqs, q.queueUrl)).total === 0);
    expect(runs).toEqual([large.deliveryId]);
    expect(await peek(q.sqs, q.deadUrl)).toEqual([]);
  });
});
