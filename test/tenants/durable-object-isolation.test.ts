import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DedupClaim, DedupStore, StoredAnswer } from 'webhook-cms-receiver';
import { WORKERD_MISSING, workerdInstalled } from '../helpers/workerd-script.js';
// @ts-expect-error a plain .mjs module of the runtime matrix, without types
import { startProcess } from '../runtimes/processes.mjs';
// @ts-expect-error a plain .mjs module of the runtime matrix, without types
import { node22 } from '../runtimes/runtimes.mjs';
// @ts-expect-error a plain .mjs module of the runtime matrix, without types
import { readWranglerConfig } from '../runtimes/worker.mjs';
import { tenantIsolationContract } from '../stores/tenant-isolation.js';

// The Durable Object store only runs in workerd. The receiver runs here; every store call
// goes to test/cloudflare/worker.ts's `/store` route, where `durableObjectDedupStore` (and the
// objects behind it) get the tenant-scoped ids exactly as a Worker's receiver would hand them.
const rootDir = fileURLToPath(new URL('../..', import.meta.url));
const runtimesDir = join(rootDir, 'test', 'runtimes');
const ADAPTERS = new Set(['node', 'express', 'hono', 'fetch', 'fastify', 'koa', 'h3', 'lambda']);

/** Bundles the test Worker to a file of this test's own, the package resolved to its sources. */
async function bundleWorker(): Promise<string> {
  const { build } = createRequire(join(runtimesDir, 'package.json'))('esbuild');
  const outDir = join(runtimesDir, 'node_modules', '.cache', 'tenant-isolation');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, 'worker.js');
  await build({
    entryPoints: [join(rootDir, 'test', 'cloudflare', 'worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    plugins: [
      {
        name: 'package-sources',
        setup(builder: { onResolve(options: object, resolve: (args: { path: string }) => object): void }) {
          builder.onResolve({ filter: /^webhook-cms-receiver(\/[a-z0-9]+)?$/ }, ({ path }) => {
            const entry = path.split('/')[1];
            if (entry === undefined) return { path: join(rootDir, 'src', 'index.ts') };
            return { path: join(rootDir, ADAPTERS.has(entry) ? 'adapters' : 'src', entry, 'index.ts') };
          });
        },
      },
    ],
  });
  return outfile;
}

/** A `DedupStore` whose every call runs inside workerd on the binding's objects. */
function remoteStore(url: string, binding: 'DEDUP' | 'DEDUP_KV'): DedupStore {
  const call = async (op: string, claim: DedupClaim, extra: { lease?: string; answer?: StoredAnswer } = {}) => {
    const response = await fetch(new URL('/store', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ binding, op, claim, ...extra }),
    });
    const reply = (await response.json()) as { result?: unknown; thrown?: string };
    if (reply.thrown !== undefined) throw new Error(reply.thrown);
    return reply.result as never;
  };
  return {
    ordering: true,
    claim: (claim) => call('claim', claim),
    renew: (claim, lease) => call('renew', claim, { lease }),
    complete: (claim, lease, answer) => call('complete', claim, { lease, answer }),
    release: (claim, lease) => call('release', claim, { lease }),
  };
}

describe.skipIf(!workerdInstalled)('durableObjectDedupStore in workerd, no nodejs_compat', () => {
  let host: { match: string[]; stop(): Promise<void> } | undefined;
  let url = '';
  beforeAll(async () => {
    const workerFile = await bundleWorker();
    const { compatibilityDate } = readWranglerConfig();
    const durableObjects = {
      DEDUP: { className: 'WebhookDedupObject', useSQLite: true },
      DEDUP_INSPECTED: { className: 'InspectedDedupObject', useSQLite: true },
      DEDUP_KV: { className: 'KeyValueDedupObject' },
      RUNS: { className: 'RunLog', useSQLite: true },
    };
    host = await startProcess(
      node22,
      [
        'worker-host.mjs',
        workerFile,
        compatibilityDate,
        JSON.stringify({ WEBHOOK_TOKEN: 'unused' }),
        '',
        JSON.stringify(durableObjects),
      ],
      { cwd: runtimesDir, ready: /^(\{"url".*\})$/m },
    );
    url = JSON.parse(host!.match[1]!).url;
  }, 120_000);
  afterAll(() => host?.stop());

  // Every case gets its own objects anyway: the ids of a case are fresh per scenario run below.
  let run = 0;
  const fresh = (binding: 'DEDUP' | 'DEDUP_KV') => {
    const store = remoteStore(url, binding);
    const namespace = `run${run++}:`;
    // A fresh store per case: the same objects, reached under ids no earlier case used.
    const scoped = (claim: DedupClaim): DedupClaim => ({
      deliveryId: namespace + claim.deliveryId,
      ...(claim.order ? { order: { ...claim.order, articleId: namespace + claim.order.articleId } } : {}),
    });
    return {
      ordering: true,
      claim: (claim: DedupClaim) => store.claim(scoped(claim)),
      renew: (claim: DedupClaim, lease: string) => store.renew!(scoped(claim), lease),
      complete: (claim: DedupClaim, lease: string, answer: StoredAnswer) =>
        store.complete(scoped(claim), lease, answer),
      release: (claim: DedupClaim, lease: string) => store.release(scoped(claim), lease),
    } satisfies DedupStore;
  };
  // Fewer cases than on the Node stores: each store call is an HTTP round trip into workerd.
  tenantIsolationContract('durableObjectDedupStore (SQLite backend)', () => fresh('DEDUP'), { runs: 12 });
  tenantIsolationContract('durableObjectDedupStore (key-value backend)', () => fresh('DEDUP_KV'), { runs: 8 });
});

if (!workerdInstalled) {
  describe('durableObjectDedupStore: tenant isolation (contract v4)', () => it.skip(WORKERD_MISSING, () => {}));
}
