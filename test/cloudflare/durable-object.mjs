#!/usr/bin/env node
// `node test/cloudflare/durable-object.mjs [--built]`: WebhookDedupObject and
// durableObjectDedupStore in workerd through miniflare, without nodejs_compat, with real
// concurrency over HTTP. Resolves the package to its sources, or with --built to dist/ (run
// `npm run build` first). Needs test/runtimes/node_modules (`npm run test:runtimes` installs
// it); reruns itself on the matrix's Node 22 when started on an older Node, as miniflare 4
// needs. Prints each check and exits 0 only when all passed.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimesModules } from './workerd-harness.mjs';

const node22 = join(runtimesModules, 'node22', 'bin', 'node');
if (!existsSync(join(runtimesModules, 'miniflare')) || !existsSync(node22)) {
  console.error(
    'durable-object: test/runtimes/node_modules has no miniflare or Node 22; `npm run test:runtimes` installs them ' +
      '(npm ci in test/runtimes).',
  );
  process.exit(1);
}
if (Number(process.versions.node.split('.')[0]) < 22) {
  const rerun = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}

const { bundle, startWorker } = await import('./workerd-harness.mjs');
const { workerClient } = await import('./worker-client.mjs');
const { deliveryChecks } = await import('./delivery-checks.mjs');
const { retentionChecks, storeChecks } = await import('./store-checks.mjs');
const { durableObjectKitCheck } = await import('../stores/durable-object-kit.mjs');
const { readWranglerConfig } = await import('../runtimes/worker.mjs');

const built = process.argv.includes('--built');
const { workerFile, testing } = await bundle({ built });
const token = `whk_${randomBytes(16).toString('hex')}`;
// The starter's compatibility date, and no flags: what a user deploys.
const { compatibilityDate } = readWranglerConfig();
const host = await startWorker(workerFile, { token, compatibilityDate });
console.log(
  `durable-object: workerd ${host.workerd} (miniflare), compatibility_date ${compatibilityDate}, no nodejs_compat, ` +
    `package from ${built ? 'dist/' : 'the sources'}`,
);

const worker = workerClient(host.url, token, testing);
const checks = [
  ...deliveryChecks(worker, testing),
  ...storeChecks(worker, 'DEDUP'),
  ...storeChecks(worker, 'DEDUP_KV'),
  ...retentionChecks(worker),
  durableObjectKitCheck(worker, 'DEDUP', testing),
];
let passed = 0;
let failed = 0;
try {
  for (const [name, run] of checks) {
    try {
      const detail = await run();
      passed++;
      console.log(`  ok   ${name}${detail ? ` (${detail})` : ''}`);
    } catch (error) {
      failed++;
      console.log(`  FAIL ${name}\n       ${describeFailure(error).split('\n').join('\n       ')}`);
    }
  }
} finally {
  await host.stop();
}
console.log(`durable-object: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;

/** An assertion's own message hides what differed: the values are added to it. */
function describeFailure(error) {
  const message = String(error?.message ?? error);
  if (error?.code !== 'ERR_ASSERTION' || error.generatedMessage) return message;
  const json = (value) => JSON.stringify(value)?.slice(0, 300);
  return `${message}\nactual:   ${json(error.actual)}\nexpected: ${json(error.expected)}`;
}
