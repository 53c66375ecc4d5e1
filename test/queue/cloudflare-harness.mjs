// What the Cloudflare Queues checks share: bundles a test Worker from the sources, runs it in
// workerd through miniflare (no nodejs_compat) with its queues, Durable Objects and R2 bucket,
// and talks to it over HTTP. Loaded by the cloudflare-*.mjs scripts, which rerun themselves on
// the matrix's Node 22 (miniflare 4 needs it) through `onNode22`.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const rootDir = fileURLToPath(new URL('../..', import.meta.url));
const runtimesModules = join(rootDir, 'test', 'runtimes', 'node_modules');
const node22 = join(runtimesModules, 'node22', 'bin', 'node');
const fromRuntimes = createRequire(join(rootDir, 'test', 'runtimes', 'package.json'));
const ADAPTERS = new Set(['node', 'express', 'hono', 'fetch', 'fastify', 'koa', 'h3', 'lambda']);

/**
 * Exits with the script rerun on Node 22 when this one is older; exits 1 when the runtime
 * matrix (miniflare, Node 22) is not installed.
 *
 * @example
 * ```js
 * onNode22(import.meta.url, 'cloudflare-bodies');
 * ```
 */
export function onNode22(scriptUrl, name) {
  if (!existsSync(join(runtimesModules, 'miniflare')) || !existsSync(node22)) {
    console.error(
      `${name}: test/runtimes/node_modules has no miniflare or Node 22; \`npm run test:runtimes\` installs them.`,
    );
    process.exit(1);
  }
  if (Number(process.versions.node.split('.')[0]) >= 22) return;
  const rerun = spawnSync(node22, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}

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

/**
 * Bundles `test/queue/<entry>` and starts it in workerd with the bindings every test Worker
 * here has: the token, `DEDUP` and `LOG` Durable Objects, the `WEBHOOKS` queue (consumed, with
 * `maxRetries`) and its dead-letter queue `DEAD`, the R2 bucket `BODIES`, and `vars`. `names`
 * renames them for a Worker written as the README shows; `withLog: false` leaves out `LOG`;
 * `outbound(request)` answers the Worker's outgoing fetches, in this process, with JSON.
 *
 * @example
 * ```js
 * const worker = await startQueueWorker({ entry: 'cloudflare-worker.ts' });
 * await worker.post(payload, deliveryId);
 * await worker.stop();
 * ```
 */
export async function startQueueWorker({
  entry,
  maxRetries = 5,
  maxBatchSize,
  names = {},
  vars = {},
  withLog = true,
  outbound,
}) {
  const binding = { dedup: 'DEDUP', bodies: 'BODIES', queue: 'WEBHOOKS', dead: 'DEAD', ...names };
  const { build } = fromRuntimes('esbuild');
  const cacheDir = join(runtimesModules, '.cache', `cloudflare-${basename(entry, '.ts')}`);
  mkdirSync(cacheDir, { recursive: true });
  const workerFile = join(cacheDir, 'worker.js');
  const testingFile = join(cacheDir, 'testing.mjs');
  const common = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning', plugins: [packageEntries] };
  await build({
    ...common,
    entryPoints: [join(rootDir, 'test', 'queue', entry)],
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
  const testing = await import(pathToFileURL(testingFile).href);
  const { Miniflare, Response: MiniflareResponse } = fromRuntimes('miniflare');
  const token = `whk_${randomBytes(16).toString('hex')}`;
  const mf = new Miniflare({
    modules: true,
    scriptPath: workerFile,
    modulesRoot: dirname(workerFile),
    compatibilityDate: '2025-09-01',
    compatibilityFlags: [],
    bindings: { WEBHOOK_TOKEN: token, ...vars },
    durableObjects: {
      [binding.dedup]: { className: 'WebhookDedupObject', useSQLite: true },
      ...(withLog ? { LOG: { className: 'QueueLog', useSQLite: true } } : {}),
    },
    ...(outbound
      ? { outboundService: async (request) => new MiniflareResponse(JSON.stringify(await outbound(request))) }
      : {}),
    r2Buckets: { [binding.bodies]: 'webhook-bodies' },
    queueProducers: { [binding.queue]: { queueName: 'webhooks' }, [binding.dead]: { queueName: 'webhooks-dead' } },
    queueConsumers: {
      webhooks: { maxBatchTimeout: 1, maxRetries, ...(maxBatchSize ? { maxBatchSize } : {}) },
      'webhooks-dead': { maxBatchTimeout: 1 },
    },
    host: '127.0.0.1',
    port: 0,
  });
  const url = await mf.ready;
  const at = (path) => new URL(path, url);
  const readLog = async () => await (await fetch(at('/log'))).json();
  const count = async (entry) => (await readLog()).filter((line) => line === entry).length;
  const until = async (what, check, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}; log: ${JSON.stringify(await readLog()).slice(0, 4000)}`);
  };
  return {
    url,
    token,
    testing,
    workerd: fromRuntimes('workerd/package.json').version,
    /** Signs and posts a delivery to /webhook; answers `{ status, body }`. */
    async post(payload, deliveryId) {
      const signed = testing.signDelivery({ token, payload, deliveryId });
      const response = await fetch(at('/webhook'), { method: 'POST', headers: signed.headers, body: signed.body });
      const text = await response.text();
      return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
    },
    /** POSTs JSON to one of the test Worker's own routes and answers its JSON. */
    async call(path, value) {
      const response = await fetch(at(path), { method: 'POST', body: JSON.stringify(value) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return await response.json();
    },
    readLog,
    count,
    until,
    /** Keys of the objects in the R2 bucket, read through miniflare. */
    bodies: async () => (await (await mf.getR2Bucket(binding.bodies)).list()).objects.map(({ key }) => key),
    stop: () => mf.dispose(),
  };
}

/** Waits `ms`; only to let what must NOT happen have its chance, never to wait for an event. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs named checks in order, printing each; prints `<name>: N passed, N failed` and exits 0
 * only when all passed. `stop` runs in the end whatever happened.
 *
 * @example
 * ```js
 * await runChecks('cloudflare-bodies', checks, worker.stop);
 * ```
 */
export async function runChecks(name, checks, stop) {
  let passed = 0;
  let failed = 0;
  try {
    for (const [title, run] of checks) {
      try {
        await run();
        passed++;
        console.log(`  ok   ${title}`);
      } catch (error) {
        failed++;
        const text = String(error?.stack ?? error);
        console.log(`  FAIL ${title}\n       ${text.split('\n').join('\n       ')}`);
      }
    }
  } finally {
    await stop();
  }
  console.log(`${name}: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
