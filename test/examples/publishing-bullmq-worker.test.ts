import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, it } from 'vitest';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { type RunningStarter, startStarter } from '../helpers/starter-process.js';
import { bullConnection, describeWithRedis, freshQueueName, redisUrl, sleep } from '../queue/queue-helpers.js';
import { publishingLifecycle } from './publishing-lifecycle.js';

// examples/bullmq-worker writes public pages too (static files, served by its `npm run
// serve`): it must follow the same publishing rules as the publishing starters, through the
// queue. Before it used /publish, it published an article scheduled for 2030 and left a
// renamed article's old file online after a trash.
describeWithRedis('examples/bullmq-worker publishes by the rules of /publish', () => {
  const token = `bullmq-publish-${randomUUID().slice(0, 8)}`;
  const queueName = freshQueueName('publish');
  let starter: CopiedStarter;
  let outside = '';
  const running: RunningStarter[] = [];
  let receiver: RunningStarter;
  let site: RunningStarter;
  let queue: Queue;

  beforeAll(async () => {
    starter = await copyStarter('bullmq-worker');
    outside = await mkdtemp(join(tmpdir(), 'bullmq-site-'));
    const env = { REDIS_URL: redisUrl!, WEBHOOK_TOKEN: token, QUEUE_NAME: queueName, SITE_DIR: join(outside, 'site') };
    site = await startStarter(
      starter.dir,
      { ...env, PORT: '0', HOST: '127.0.0.1' },
      { command: ['npm', 'run', 'serve'] },
    );
    running.push(site);
    const siteUrl = site.url.replace(/\/$/, '');
    receiver = await startStarter(
      starter.dir,
      { ...env, PORT: '0', HOST: '127.0.0.1' },
      { command: ['npm', 'run', 'receiver'] },
    );
    running.push(receiver);
    // Two worker processes, as the README suggests running several: they share the site.
    for (let n = 0; n < 2; n++)
      running.push(
        await startStarter(
          starter.dir,
          { ...env, PUBLIC_URL: siteUrl },
          { command: ['npm', 'run', 'worker'], timeoutMs: 60_000 },
        ),
      );
    queue = new Queue(queueName, { connection: bullConnection() });
  }, 240_000);
  afterAll(async () => {
    await queue?.close();
    for (const process of running) await process.stop();
    await starter?.remove();
    await rm(outside, { recursive: true, force: true });
  });

  /** Resolves once no job is waiting, delayed or running. */
  async function settle(): Promise<void> {
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
      if (Object.values(counts).every((count) => count === 0)) return;
      await sleep(25);
    }
  }

  it('plays the article lifecycle through the queue: draft, publish, rename, stale retry, unpublish, schedule, trash, archive', async () => {
    const siteUrl = site.url.replace(/\/$/, '');
    await publishingLifecycle({ webhook: receiver.url, site: siteUrl, publicUrl: siteUrl, token, queued: { settle } });
  }, 120_000);
});
