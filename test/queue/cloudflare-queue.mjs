#!/usr/bin/env node
// `node test/queue/cloudflare-queue.mjs`: queue mode on Cloudflare Queues in workerd through
// miniflare, without nodejs_compat: a receiver Worker on a Queue producer answers `queued`,
// the same Worker's queue() consumer runs the handlers with durableObjectDedupStore, retries
// with the worker's backoff, and sends what fails for good to a dead-letter queue. Needs
// test/runtimes/node_modules (`npm run test:runtimes` installs it); reruns itself on the
// matrix's Node 22, as miniflare 4 needs. Prints each check; exits 0 only when all passed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const rootDir = fileURLToPath(new URL('../..', import.meta.url));
const runtimesModules = join(rootDir, 'test', 'runtimes', 'node_modules');
const node22 = join(runtimesModules, 'node22', 'bin', 'node');
if (!existsSync(join(runtimesModules, 'miniflare')) || !existsSync(node22)) {
  console.error(
    'cloudflare-queue: test/runtimes/node_modules has no miniflare or Node 22; `npm run test:runtimes` installs them.',
  );
  process.exit(1);
}
if (Number(process.versions.node.split('.')[0]) < 22) {
  const rerun = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}
const fromRuntimes = createRequire(join(rootDir, 'test', 'runtimes', 'package.json'));
const cacheDir = join(runtimesModules, '.cache', 'cloudflare-queue');
const ADAPTERS = new Set(['node', 'express', 'hono', 'fetch', 'fastify', 'koa', 'h3', 'lambda']);

/** Resolves `webhook-cms-receiver[/entry]` to the sources, as the vitest config does. */
const packageEntries = {
  name: 'webhook-cms-receiver-entries',
  setup(build) {
    build.onResolve({ filter: /^webhook-cms-receiver(\/[a-z0-9-]+)?$/ }, ({ path }) => {
      const entry = path.split('/')[1];
      if (entry === undefined) return { path: join(rootDir, 'src', 'index.ts') };
      return { path: join(rootDir, ADAPTERS.has(entry) ? 'adapters' : 'src', entry, 'index.ts') };
    });
  },
};

const { build } = fromRuntimes('esbuild');
mkdirSync(cacheDir, { recursive: true });
const workerFile = join(cacheDir, 'worker.js');
const testingFile = join(cacheDir, 'testing.mjs');
const common = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning', plugins: [packageEntries] };
await build({
  ...common,
  entryPoints: [join(rootDir, 'test', 'queue', 'cloudflare-worker.ts')],
  outfile: workerFile,
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
});
await build({
  ...common,
  stdin: { contents: "export * from 'webhook-cms-receiver/testing';", resolveDir: rootDir, loader: 'js' },
  outfile: testingFile,
  platform: 'node',
});
const { signDelivery, articleSyncPayload } = await import(pathToFileURL(testingFile).href);

const { Miniflare } = fromRuntimes('miniflare');
const token = `whk_${randomBytes(16).toString('hex')}`;
const mf = new Miniflare({
  modules: true,
  scriptPath: workerFile,
  modulesRoot: dirname(workerFile),
  compatibilityDate: '2025-09-01',
  compatibilityFlags: [],
  bindings: { WEBHOOK_TOKEN: token },
  durableObjects: {
    DEDUP: { className: 'WebhookDedupObject', useSQLite: true },
    LOG: { className: 'QueueLog', useSQLite: true },
  },
  queueProducers: { WEBHOOKS: { queueName: 'webhooks' }, DEAD: { queueName: 'webhooks-dead' } },
  queueConsumers: { webhooks: { maxBatchTimeout: 1, maxRetries: 5 }, 'webhooks-dead': { maxBatchTimeout: 1 } },
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
const workerd = fromRuntimes('workerd/package.json').version;
console.log(`cloudflare-queue: workerd ${workerd} (miniflare), no nodejs_compat, package from the sources`);

const post = async (payload, deliveryId) => {
  const signed = signDelivery({ token, payload, deliveryId });
  const response = await fetch(new URL('/webhook', url), {
    method: 'POST',
    headers: signed.headers,
    body: signed.body,
  });
  return { status: response.status, body: await response.json() };
};
const readLog = async () => await (await fetch(new URL('/log', url))).json();
const count = async (entry) => (await readLog()).filter((line) => line === entry).length;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (what, check, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}; log: ${JSON.stringify(await readLog())}`);
};
const sync = (slug, extra = {}) => articleSyncPayload({ article: { slug }, ...extra });

const checks = [
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
];

let passed = 0;
let failed = 0;
try {
  for (const [name, run] of checks) {
    try {
      await run();
      passed++;
      console.log(`  ok   ${name}`);
    } catch (error) {
      failed++;
      console.log(
        `  FAIL ${name}\n       ${String(error?.stack ?? error)
          .split('\n')
          .join('\n       ')}`,
      );
    }
  }
} finally {
  await mf.dispose();
}
console.log(`cloudflare-queue: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
