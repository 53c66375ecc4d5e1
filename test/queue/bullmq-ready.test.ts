import { expect, it } from 'vitest';
import { startWorker } from 'webhook-cms-receiver';
import { bullmqSource } from 'webhook-cms-receiver/bullmq';
import { freePort } from '../setup/services.js';
import { describeWithRedis, freshQueueName } from './queue-helpers.js';

describeWithRedis('bullmqSource readiness', () => {
  it('worker.ready rejects, naming the fix, when Redis cannot be reached at all (a closed port)', async () => {
    const port = await freePort();
    const logged: unknown[] = [];
    const worker = startWorker(
      bullmqSource({
        queueName: freshQueueName('ready'),
        connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
      }),
      { handlers: {}, logger: { warn: () => {}, error: (...args: unknown[]) => void logged.push(args) } },
    );
    await expect(worker.ready).rejects.toThrow(/cannot reach Redis .*ECONNREFUSED.*check bullmqSource's connection/);
    expect(logged.length).toBe(1);
    await worker.close();
  });
});
