#!/usr/bin/env node
// `node test/queue/cloudflare-defaults.mjs`: Cloudflare queue mode exactly as documented. The
// Worker (cloudflare-defaults-worker.ts) holds the README's snippet verbatim, which this checks
// first, with the bindings the README names and nothing else configured; then a small and a
// 1 MiB delivery are each published once and no R2 copy is left. Exits 0 only when all passed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { onNode22, runChecks, sleep, startQueueWorker } from './cloudflare-harness.mjs';

onNode22(import.meta.url, 'cloudflare-defaults');
const published = [];
const worker = await startQueueWorker({
  entry: 'cloudflare-defaults-worker.ts',
  names: { dedup: 'WEBHOOK_DEDUP', bodies: 'WEBHOOK_BODIES', queue: 'WEBHOOKS', dead: 'WEBHOOKS_DEAD' },
  // max_retries as the README says: retry.attempts (10 by default) − 1.
  maxRetries: 9,
  withLog: false,
  outbound: async (request) => {
    published.push(JSON.parse(await request.text()));
    return { ok: true };
  },
});
console.log(
  `cloudflare-defaults: workerd ${worker.workerd} (miniflare), the README's bindings, package from the sources`,
);
const { articleSyncPayload } = worker.testing;

/** Lines of code with their indentation made relative, comments and blank lines left out. */
const code = (text) =>
  text
    .split('\n')
    .map((line) => line.replace(/\s*\/\/.*$/, '').trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');

const until = async (what, check) => {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; published: ${JSON.stringify(published)}`);
    await sleep(100);
  }
};
const deliver = async (article) => {
  const deliveryId = randomUUID();
  const answer = await worker.post(articleSyncPayload({ article }), deliveryId);
  assert.deepEqual(answer, { status: 200, body: { ok: true, queued: true } });
  await until(`the publish of ${deliveryId}`, () => published.some((call) => call.deliveryId === deliveryId));
  return deliveryId;
};

await runChecks(
  'cloudflare-defaults',
  [
    [
      "the Worker's queue-mode code is the queue-mode guide's snippet, verbatim",
      async () => {
        const guide = readFileSync(new URL('../../docs/queue-mode.md', import.meta.url), 'utf8');
        const section = guide.slice(guide.indexOf('## Queue mode on Cloudflare Workers'));
        const snippet = section.match(/```ts\n([\s\S]*?)```/)?.[1];
        assert.ok(snippet, 'docs/queue-mode.md has a ts block under "## Queue mode on Cloudflare Workers"');
        const source = readFileSync(new URL('./cloudflare-defaults-worker.ts', import.meta.url), 'utf8');
        const region = source.split('// README: begin\n')[1]?.split('// README: end')[0];
        assert.ok(code(snippet).includes(code(region)), `the README's snippet holds:\n${code(region)}`);
      },
    ],
    [
      'a delivery is answered queued and published once, with the documented defaults',
      async () => {
        const id = await deliver({ slug: 'documented' });
        await sleep(1500);
        assert.equal(published.filter((call) => call.deliveryId === id).length, 1);
      },
    ],
    [
      'a 1 MiB delivery is published once through the R2 bucket, which is empty afterwards',
      async () => {
        const content = 'Große Wörter — '.repeat(70_000);
        const id = await deliver({ slug: 'large', content_html: content });
        assert.equal(published.find((call) => call.deliveryId === id).length, content.length);
        // Deleted right after the run, in the same queue() call: polled, not timed.
        const deadline = Date.now() + 30_000;
        while ((await worker.bodies()).length > 0 && Date.now() < deadline) await sleep(100);
        assert.deepEqual(await worker.bodies(), []);
        assert.equal(published.filter((call) => call.deliveryId === id).length, 1);
      },
    ],
  ],
  worker.stop,
);
