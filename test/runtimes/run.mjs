// `npm run test:runtimes`: the shared vectors through the BUILT package on every runtime the
// contract names, then the Bun, Deno and Worker examples over real HTTP. Nothing is skipped:
// a runtime that is missing or fails makes the exit code non-zero.
import { randomBytes } from 'node:crypto';
import { delimiter, join } from 'node:path';
import { durableObjectsInWorkerd } from './durable-objects.mjs';
import { ensureRuntimesInstalled, linkPackageInto, rootDir, runtimesDir } from './install.mjs';
import { runToEnd, startProcess } from './processes.mjs';
import { publishOn } from './publish-matrix.mjs';
import { bun, deno, judge, runtimes } from './runtimes.mjs';
import { hostWorker, readWranglerConfig } from './worker.mjs';

ensureRuntimesInstalled();
const exampleDir = (name) => join(rootDir, 'examples', name);
for (const dir of [runtimesDir, exampleDir('bun'), exampleDir('deno'), exampleDir('cloudflare-worker')])
  linkPackageInto(dir);
// Imported only now: it loads webhook-cms-receiver/testing through the link made above.
const { deliverScenario, probeScenario } = await import('./example-scenario.mjs');
const { compatibilityDate, main: workerMain, durableObjects } = readWranglerConfig();

const rows = [];
console.log('vectors through verify(), handle() and the Fetch adapter of the built package:');
for (const entry of runtimes) rows.push(print(await attempt(entry.label, () => vectorsOn(entry))));
console.log('the /publish entry of the built package (sanitizeHtml and its hast peers, contentHash, slug answers):');
for (const entry of runtimes) rows.push(print(await attempt(entry.label, () => publishOn(entry))));
console.log('examples, started and sent signed deliveries over HTTP, then probed (probe --writes):');
for (const [label, start] of exampleStarters()) rows.push(print(await attempt(label, () => exampleOn(start))));
console.log('the Durable Object dedup store of the built package, in workerd (test/cloudflare/durable-object.mjs):');
rows.push(print(await attempt('durableObjectDedupStore (workerd)', durableObjectsInWorkerd)));

const passed = rows.reduce((sum, row) => sum + row.passed, 0);
const failed = rows.reduce((sum, row) => sum + row.failed, 0);
console.log(`runtimes: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;

async function vectorsOn(entry) {
  const report = entry.worker ? await vectorsInWorker(entry) : await vectorsInProcess(entry);
  const failures = judge(entry, report);
  return { ...report, failed: failures.length, failures };
}

async function vectorsInProcess(entry) {
  const { code, stdout, stderr } = await runToEnd(entry.command, entry.args, { cwd: runtimesDir });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{'))
    throw new Error(`exited ${code}: ${stderr.trim() || stdout.trim() || 'no output'}`);
  return JSON.parse(line);
}

async function vectorsInWorker(entry) {
  const worker = await hostWorker('vectors', join(runtimesDir, 'worker-vectors.mjs'), {
    compatibilityDate,
    compatibilityFlags: entry.flags,
  });
  try {
    const report = await (await fetch(worker.url, { signal: AbortSignal.timeout(60_000) })).json();
    return { ...report, version: worker.workerd };
  } finally {
    await worker.stop();
  }
}

function exampleStarters() {
  const env = (token) => ({
    ...process.env,
    WEBHOOK_TOKEN: token,
    HOST: '127.0.0.1',
    PORT: '0',
    PATH: `${join(runtimesDir, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
  });
  const ready = /Listening on (http:\/\/\S+)/;
  return [
    // Each started with the command its README gives.
    [
      'examples/bun (bun run start)',
      async (token) =>
        wrapServer(await startProcess(bun, ['run', 'start'], { cwd: exampleDir('bun'), env: env(token), ready })),
    ],
    [
      'examples/deno (deno task start)',
      async (token) =>
        wrapServer(await startProcess(deno, ['task', 'start'], { cwd: exampleDir('deno'), env: env(token), ready })),
    ],
    [
      'examples/cloudflare-worker (workerd)',
      async (token) => {
        const worker = await hostWorker('cloudflare-worker', workerMain, {
          compatibilityDate,
          bindings: { WEBHOOK_TOKEN: token },
          durableObjects,
        });
        return { url: new URL('webhook', worker.url).href, stop: worker.stop, version: worker.workerd };
      },
    ],
  ];
}

function wrapServer(server) {
  return { url: server.match[1], stop: server.stop };
}

async function exampleOn(start) {
  const token = `whk_${randomBytes(16).toString('hex')}`;
  const example = await start(token);
  try {
    const scenario = await deliverScenario(example.url, token);
    const probe = await probeScenario(example.url, token);
    const failures = [...scenario.failures, ...probe.failures];
    return { passed: scenario.passed + probe.passed, failed: failures.length, failures, version: example.version };
  } finally {
    await example.stop();
  }
}

async function attempt(label, run) {
  try {
    return { label, ...(await run()) };
  } catch (error) {
    return { label, passed: 0, failed: 1, failures: [String(error?.message ?? error)] };
  }
}

function print(row) {
  const mark = row.failed === 0 ? 'ok  ' : 'FAIL';
  const columns = [row.label.padEnd(38), (row.version ?? '').padEnd(14), (row.cryptoPath ?? '').padEnd(12)];
  console.log(`  ${mark} ${columns.join(' ')} ${row.passed} passed, ${row.failed} failed`);
  for (const failure of row.failures) console.log(`         - ${failure}`);
  return row;
}
