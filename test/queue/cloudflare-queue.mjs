#!/usr/bin/env node
// `node test/queue/cloudflare-queue.mjs`: queue mode on Cloudflare Queues in workerd through
// miniflare, without nodejs_compat: a receiver Worker on a Queue producer answers `queued`,
// the same Worker's queue() consumer runs the handlers with durableObjectDedupStore, retries
// with the worker's backoff, and sends what fails for good to a dead-letter queue, with the
// reason. Needs test/runtimes/node_modules (`npm run test:runtimes` installs it); reruns itself
// on the matrix's Node 22, as miniflare 4 needs. Prints each check; exits 0 only when all passed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onNode22, runChecks, sleep, startQueueWorker } from './cloudflare-harness.mjs';

onNode22(import.meta.url, 'cloudflare-queue');
const worker = await startQueueWorker({ entry: 'cloudflare-worker.ts' });
console.log(`cloudflare-queue: workerd ${worker.workerd} (miniflare), no nodejs_compat, package from the sources`);
const { articleSyncPayload } = worker.testing;
const { post, count, until } = worker;
const sync = (slug, extra = {}) => articleSyncPayload({ article: { slug }, ...extra });

await runChecks(
  'cloudflare-queue',
  [
    [
      'the receiver answers queued, a redelivery duplicate, and the consumer runs the handler once',
      async () => {
        const id = randomUUID();
        assert.deepEqual(await post(sync('quick'), id), { status: 200, body: { ok: true, queued: true } });
        assert.deepEqual(await post(sync('quick'), id), {
          status: 200,
          body: { ok: true, queued: true, duplicate: true },
        });
        await until('the effect', async () => (await count(`effect ${id}`)) === 1);
        await sleep(1500);
        assert.equal(await count(`run ${id}`), 1);
        assert.equal(await count(`effect ${id}`), 1);
      },
    ],
    [
      'a handler that throws once is retried after the backoff, with one effect',
      async () => {
        const id = randomUUID();
        await post(sync('fail-once'), id);
        await until('the retried effect', async () => (await count(`effect ${id}`)) === 1);
        assert.equal(await count(`run ${id}`), 2);
      },
    ],
    [
      'a handler that always fails ends in the dead-letter queue after its attempts; a fatal one at once',
      async () => {
        const always = randomUUID();
        const fatal = randomUUID();
        await post(sync('always-fails'), always);
        await post(sync('fatal'), fatal);
        await until(
          'two dead letters',
          async () => (await count(`dead ${always}`)) + (await count(`dead ${fatal}`)) === 2,
        );
        assert.equal(await count(`run ${always}`), 2);
        assert.equal(await count(`run ${fatal}`), 1);
        assert.equal(await count(`reason ${always} always fails`), 1, 'the dead letter says why');
        assert.equal(await count(`reason ${fatal} never works`), 1, 'the dead letter says why');
      },
    ],
    [
      'ordering: a sync older than one applied is skipped without running',
      async () => {
        const article = { id: randomUUID(), slug: 'ordered' };
        const newer = randomUUID();
        const older = randomUUID();
        await post(articleSyncPayload({ timestamp: 200, article }), newer);
        await until('the newer sync', async () => (await count(`effect ${newer}`)) === 1);
        assert.deepEqual(await post(articleSyncPayload({ timestamp: 100, article }), older), {
          status: 200,
          body: { ok: true, queued: true },
        });
        await sleep(3000);
        assert.equal(await count(`run ${older}`), 0);
      },
    ],
  ],
  worker.stop,
);
