import { existsSync } from 'node:fs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, expect, it } from 'vitest';
import { createReceiver, type QueueWorker, startWorker } from 'webhook-cms-receiver';
import { sqsQueue, sqsSource } from 'webhook-cms-receiver/sqs';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { cliPath, runCli } from '../cli/run-cli.js';
import { until } from '../queue/queue-helpers.js';
import { describeWithSqs, freshQueue, queueCounts, sqsEndpoint } from './sqs-helpers.js';

const token = 'sqs-replay-token';
const built = existsSync(cliPath);
const aws = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
const workers: QueueWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});

describeWithSqs('webhook-cms-receiver replay --engine sqs (the built CLI, fauxqs)', () => {
  it.skipIf(!built)(
    'lists the dead letters with their reason (or says the redrive kept none), and --id sends one back with fresh attempts',
    async () => {
      const q = await freshQueue('replay', { maxReceiveCount: 3 });
      const state = { broken: true, effects: [] as string[] };
      const worker = startWorker(
        sqsSource({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies, waitTimeSeconds: 1 }),
        {
          handlers: {
            'article.sync': ({ deliveryId }) => {
              if (state.broken) throw new Error('the CMS image host is down');
              state.effects.push(deliveryId!);
            },
          },
          retry: { attempts: 1 },
          logger: false,
          onError: () => {},
        },
      );
      workers.push(worker);
      await worker.ready;
      const receiver = createReceiver({
        token,
        queue: sqsQueue({ client: q.sqs, queueUrl: q.queueUrl, bodies: q.bodies }),
      });
      const deliveryId = crypto.randomUUID();
      await receiver.handle(signDelivery({ token, payload: articleSyncPayload(), deliveryId }));
      // A message the redrive policy moved on its own carries no reason.
      await q.sqs.send(new SendMessageCommand({ QueueUrl: q.deadUrl, MessageBody: 'moved by SQS' }));
      await until('the dead letters', async () => (await queueCounts(q.sqs, q.deadUrl)).total === 2, 20_000);

      const args = ['replay', '--engine', 'sqs', '--queue', q.queueUrl, '--endpoint', sqsEndpoint!];
      const listed = await runCli([...args, '--json'], { env: aws });
      expect(listed.code, listed.stderr).toBe(0);
      const { deadLetters } = JSON.parse(listed.stdout) as {
        deadLetters: Array<{ id: string; deliveryId: string | null; reason: string }>;
      };
      expect(deadLetters).toHaveLength(2);
      expect(deadLetters).toContainEqual(
        expect.objectContaining({ deliveryId, event: 'article.sync', reason: 'the CMS image host is down' }),
      );
      expect(deadLetters).toContainEqual(
        expect.objectContaining({
          deliveryId: null,
          reason: expect.stringMatching(/^no reason kept: moved by the redrive policy/),
        }),
      );
      // Listing leaves them where they were, visible at once.
      expect((await queueCounts(q.sqs, q.deadUrl)).visible).toBe(2);

      state.broken = false;
      const ours = deadLetters.find((letter) => letter.deliveryId === deliveryId)!;
      const replayed = await runCli([...args, '--id', ours.id], { env: aws });
      expect(replayed.code, replayed.stderr).toBe(0);
      expect(replayed.stdout).toContain('1 replayed, 0 failed');
      await until('the replayed delivery to run', () => state.effects.length === 1);
      expect(state.effects).toEqual([deliveryId]);
      expect((await queueCounts(q.sqs, q.deadUrl)).total).toBe(1);
    },
    40_000,
  );
});
