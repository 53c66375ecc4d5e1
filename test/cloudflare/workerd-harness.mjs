// Bundles the test Worker as wrangler would and runs it in workerd through miniflare, with the
// Durable Object bindings it needs. Loaded by durable-object.mjs under Node 22+ (miniflare 4).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const rootDir = fileURLToPath(new URL('../..', import.meta.url));
export const runtimesModules = join(rootDir, 'test', 'runtimes', 'node_modules');
const cacheDir = join(runtimesModules, '.cache', 'cloudflare-dedup');
// miniflare and esbuild come from the runtime matrix's own install, not the root's.
const fromRuntimes = createRequire(join(rootDir, 'test', 'runtimes', 'package.json'));

const ADAPTERS = new Set(['node', 'express', 'hono', 'fetch', 'fastify', 'koa', 'h3', 'lambda']);

/**
 * An esbuild plugin resolving `webhook-cms-receiver[/entry]` as the vitest config does (to
 * the sources), or, with `built`, to the built files in dist/ as an installed package would.
 */
function packageEntries(built) {
  return {
    name: 'webhook-cms-receiver-entries',
    setup(build) {
      build.onResolve({ filter: /^webhook-cms-receiver(\/[a-z0-9]+)?$/ }, ({ path }) => {
        const entry = path.split('/')[1];
        if (built) return { path: join(rootDir, 'dist', `${entry ?? 'index'}.js`) };
        if (entry === undefined) return { path: join(rootDir, 'src', 'index.ts') };
        return { path: join(rootDir, ADAPTERS.has(entry) ? 'adapters' : 'src', entry, 'index.ts') };
      });
    },
  };
}

/**
 * Bundles `test/cloudflare/worker.ts` for workerd (the `workerd`, `worker` and `browser`
 * conditions, no Node built-ins) and the `/testing` helpers for this Node process; refuses a
 * Worker bundle that imports `node:` or `cloudflare:` modules, which a Worker without
 * nodejs_compat (or a Node type-check) could not take.
 *
 * @example
 * ```js
 * const { workerFile, testing } = await bundle({ built: false });
 * ```
 */
export async function bundle({ built }) {
  const { build } = fromRuntimes('esbuild');
  mkdirSync(cacheDir, { recursive: true });
  const workerFile = join(cacheDir, 'worker.js');
  const testingFile = join(cacheDir, 'testing.mjs');
  const common = {
    bundle: true,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    plugins: [packageEntries(built)],
  };
  await build({
    ...common,
    entryPoints: [join(rootDir, 'test', 'cloudflare', 'worker.ts')],
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
  const code = readFileSync(workerFile, 'utf8');
  const banned =
    /\bfrom\s*["'](node|cloudflare):|\bimport\(\s*["'](node|cloudflare):|\brequire\(\s*["'](node|cloudflare):/;
  if (banned.test(code))
    throw new Error('the Worker bundle imports a node: or cloudflare: module; it must run without nodejs_compat');
  return { workerFile, testing: await import(pathToFileURL(testingFile).href) };
}

/**
 * Starts workerd on 127.0.0.1 with the bundled Worker, no compatibility flags, and its
 * Durable Objects: the dedup object on the SQLite backend (`DEDUP`, `DEDUP_INSPECTED`) and
 * on the key-value backend (`DEDUP_KV`), and the run log (`RUNS`).
 *
 * @example
 * ```js
 * const worker = await startWorker(workerFile, { token, compatibilityDate: '2025-09-01' });
 * await fetch(new URL('/webhook', worker.url), init);
 * await worker.stop();
 * ```
 */
export async function startWorker(workerFile, { token, compatibilityDate }) {
  const { Miniflare } = fromRuntimes('miniflare');
  const mf = new Miniflare({
    modules: true,
    scriptPath: workerFile,
    modulesRoot: dirname(workerFile),
    compatibilityDate,
    compatibilityFlags: [],
    bindings: { WEBHOOK_TOKEN: token },
    durableObjects: {
      DEDUP: { className: 'WebhookDedupObject', useSQLite: true },
      DEDUP_INSPECTED: { className: 'InspectedDedupObject', useSQLite: true },
      DEDUP_KV: { className: 'KeyValueDedupObject' },
      RUNS: { className: 'RunLog', useSQLite: true },
    },
    host: '127.0.0.1',
    port: 0,
  });
  const url = await mf.ready;
  return { url: url.href, workerd: fromRuntimes('workerd/package.json').version, stop: () => mf.dispose() };
}
