import { type SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, it } from 'vitest';
import { memoryDedupStore, type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { sqsQueue, sqsSource } from 'webhook-cms-receiver/sqs';
import { tenantsInQueueMode } from '../queue/tenant-queue-scenario.js';
import { describeWithSqs, freshQueue } from './sqs-helpers.js';

describeWithSqs('queue mode on SQS with tenants (contract v4, fauxqs)', () => {
  const workers: QueueWorker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
  });

  it('a FIFO queue deduplicates on the tenant-scoped delivery id (two messages, each carrying its tenant); worker dedup and ordering are per tenant', async () => {
    const q = await freshQueue('tenants', { fifo: true });
    // What the receiver sent, by deduplication id: SQS keeps no message once a worker deleted it.
    const sent = new Map<string, { deliveryId: string; tenant?: string }>();
    const recording = new SQSClient({
      endpoint: process.env.SQS_ENDPOINT,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const send = recording.send.bind(recording);
    recording.send = ((command: SendMessageCommand, options?: object) => {
      const input = command.input as SendMessageCommand['input'];
      if (input?.MessageDeduplicationId) {
        sent.set(input.MessageDeduplicationId, JSON.parse(input.MessageAttributes!.webhook!.StringValue!));
      }
      return send(command as never, options as never);
    }) as typeof recording.send;
    const queue = sqsQueue({ client: recording, queueUrl: q.queueUrl, bodies: q.bodies });
    await tenantsInQueueMode({
      queue: () => queue,
      work: (options) => {
        const worker = startWorker(
          sqsSource({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies, waitTimeSeconds: 1 }),
          {
            ...options,
            logger: false,
          },
        );
        workers.push(worker);
        return worker;
      },
      jobData: async (key) => sent.get(key),
      store: () => memoryDedupStore(),
    });
  }, 60_000);
});
