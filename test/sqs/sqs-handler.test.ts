import { randomUUID } from 'node:crypto';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { type SqsEventLike, sqsHandler, sqsQueue } from 'webhook-cms-receiver/sqs';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { until } from '../queue/queue-helpers.js';
import { describeWithSqs, freshQueue, peek, queueCounts } from './sqs-helpers.js';

const token = 'sqs-handler-token';

/** What Lambda's poller would hand the function: up to 10 messages as an SQS event. */
async function lambdaEvent(q: Awaited<ReturnType<typeof freshQueue>>, max = 10): Promise<SqsEventLike> {
  const messages: Message[] = [];
  const deadline = Date.now() + 5000;
  while (messages.length < max && Date.now() < deadline) {
    const { Messages = [] } = await q.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: q.queueUrl,
        MaxNumberOfMessages: max - messages.length,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    messages.push(...Messages);
    if (Messages.length === 0 && messages.length > 0) break;
  }
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body!,
      attributes: { ...m.Attributes },
      messageAttributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          { stringValue: value.StringValue, dataType: value.DataType! },
        ]),
      ),
    })),
  };
}

describeWithSqs('sqsHandler: an SQS-triggered Lambda (fauxqs)', () => {
  it('one failing delivery is the only batch item failure: the others run once and are deleted, it comes back later', async () => {
    const q = await freshQueue('lambda');
    const receiver = createReceiver({
      token,
      queue: sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies }),
    });
    const ids: string[] = [];
    for (const slug of ['one', 'fails-once', 'three']) {
      const id = randomUUID();
      ids.push(id);
      const signed = signDelivery({ token, payload: articleSyncPayload({ article: { slug } }), deliveryId: id });
      expect((await receiver.handle(signed)).status).toBe(200);
    }
    const runs: string[] = [];
    const handler = sqsHandler({
      handlers: {
        'article.sync': (event) => {
          runs.push(event.article.slug);
          if (event.article.slug === 'fails-once' && runs.filter((s) => s === 'fails-once').length === 1) {
            throw new Error('the CMS was down');
          }
        },
      },
      client: q.sqs,
      queueUrl: q.queueUrl,
      bodies: q.bodies,
      dedup: memoryDedupStore(),
      retry: { attempts: 3, initialDelayMs: 1000, maxDelayMs: 1000 },
      logger: false,
    });
    const event = await lambdaEvent(q, 3);
    expect(event.Records).toHaveLength(3);
    const failing = event.Records.find(
      (r) => JSON.parse(r.messageAttributes!.webhook!.stringValue!).deliveryId === ids[1],
    );
    expect(await handler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: failing!.messageId }] });
    expect(runs.sort()).toEqual(['fails-once', 'one', 'three']);
    // The retry waits out the worker's backoff (ChangeMessageVisibility), then runs once more.
    expect((await queueCounts(q.sqs, q.queueUrl)).total).toBe(1);
    const retry = await lambdaEvent(q, 1);
    expect(retry.Records.map((r) => [r.messageId, r.attributes.ApproximateReceiveCount])).toEqual([
      [failing!.messageId, '2'],
    ]);
    expect(await handler(retry)).toEqual({ batchItemFailures: [] });
    expect(runs.filter((s) => s === 'fails-once')).toHaveLength(2);
    await until('the queue empty', async () => (await queueCounts(q.sqs, q.queueUrl)).total === 0);
  });

  it('out of attempts: dead-lettered with its reason, and not a batch item failure', async () => {
    const q = await freshQueue('lambda-dead');
    const receiver = createReceiver({
      token,
      queue: sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies }),
    });
    const id = randomUUID();
    await receiver.handle(
      signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'x' } }), deliveryId: id }),
    );
    const handler = sqsHandler({
      handlers: { 'article.sync': () => Promise.reject(new Error('never publishes')) },
      client: q.sqs,
      queueUrl: q.queueUrl,
      bodies: q.bodies,
      retry: { attempts: 1 },
      logger: false,
    });
    expect(await handler(await lambdaEvent(q, 1))).toEqual({ batchItemFailures: [] });
    const [letter] = await peek(q.sqs, q.deadUrl);
    expect(JSON.parse(letter!.MessageAttributes!['webhook-failure']!.StringValue!)).toMatchObject({
      reason: 'never publishes',
      attempts: 1,
    });
    expect((await queueCounts(q.sqs, q.queueUrl)).total).toBe(0);
  });

  it('FIFO: after a failure, the rest of that article waits (reported, not run); other articles run', async () => {
    const q = await freshQueue('lambda-fifo', { fifo: true });
    const queue = sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies });
    const receiver = createReceiver({ token, queue });
    const [a, b] = [randomUUID(), randomUUID()];
    for (const [article, slug] of [
      [a, 'a-0'],
      [a, 'a-1'],
      [b, 'b-0'],
    ] as const) {
      const signed = signDelivery({ token, payload: articleSyncPayload({ article: { id: article, slug } }) });
      expect((await receiver.handle(signed)).status).toBe(200);
    }
    const runs: string[] = [];
    const handler = sqsHandler({
      handlers: {
        'article.sync': (event) => {
          runs.push(event.article.slug);
          if (event.article.slug === 'a-0') throw new Error('not yet');
        },
      },
      client: q.sqs,
      queueUrl: q.queueUrl,
      logger: false,
    });
    const received = await lambdaEvent(q, 10);
    // SQS may hand a batch several messages of one group, in order; fauxqs hands out one per
    // group at a time, so the second of article A is added as SQS would have sent it.
    const first = received.Records.find((r) => JSON.parse(r.body).article.slug === 'a-0')!;
    const event: SqsEventLike = {
      Records: [
        ...received.Records.filter((r) => JSON.parse(r.body).article.slug !== 'a-1'),
        { ...first, messageId: 'a-1-record', body: first.body.replace('"a-0"', '"a-1"') },
      ],
    };
    const slugs = event.Records.map((r) => JSON.parse(r.body).article.slug);
    expect(slugs.filter((s) => s.startsWith('a-'))).toEqual(['a-0', 'a-1']);
    const result = await handler(event);
    expect(runs).not.toContain('a-1');
    const failed = result.batchItemFailures.map(
      (f) => slugs[event.Records.findIndex((r) => r.messageId === f.itemIdentifier)],
    );
    expect(failed).toEqual(slugs.filter((s) => s.startsWith('a-')));
    expect(runs.sort()).toEqual(slugs.includes('b-0') ? ['a-0', 'b-0'] : ['a-0']);
  });
  it('warns once when the function has less time left than handlerTimeoutMs', async () => {
    const q = await freshQueue('lambda-time');
    const warnings: string[] = [];
    const handler = sqsHandler({
      handlers: {},
      client: q.sqs,
      queueUrl: q.queueUrl,
      logger: { warn: (text: string) => void warnings.push(text), error: () => {} },
    });
    const context = { getRemainingTimeInMillis: () => 60_000 };
    await handler({ Records: [] }, context);
    await handler({ Records: [] }, context);
    expect(warnings).toEqual([
      expect.stringMatching(/^sqsHandler: handlerTimeoutMs is 300000 ms but this invocation had 60000 ms left/),
    ]);
    const roomy = sqsHandler({
      handlers: {},
      client: q.sqs,
      queueUrl: q.queueUrl,
      handlerTimeoutMs: 50_000,
      logger: { warn: (text: string) => void warnings.push(text), error: () => {} },
    });
    await roomy({ Records: [] }, context);
    expect(warnings).toHaveLength(1);
  });
});
