// `npm run test:runtimes`: the shared vectors through the BUILT package on every runtime the
// contract names, then the Bun, Deno and Worker examples over real HTTP. Nothing is skipped:
// a runtime that is missing or fails makes the exit code non-zero. `--only <text>` runs just
// the rows whose label holds that text, such as `--only cloudflare-worker`.
import { randomBytes } from 'node:crypto';
import { delimiter, join } from 'node:path';
import { durableObjectsInWorkerd } from './durable-objects.mjs';
import { ensureRuntimesInstalled, linkPackageInto, rootDir, runtimesDir } from './install.mjs';
import { runToEnd, startProcess } from './processes.mjs';
import { publishOn } from './publish-matrix.mjs';
import { bun, deno, judge, runtimes } from './runtimes.mjs';
import { copyStarterOut, hostWorker, readWranglerConfig } from './worker.mjs';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const wanted = (label) => only === undefined || label.includes(only);
ensureRuntimesInstalled();
const exampleDir = (name) => join(rootDir, 'examples', name);
for (const dir of [runtimesDir, exampleDir('bun'), exampleDir('deno')]) linkPackageInto(dir);
// Imported only now: they load webhook-cms-receiver/testing through the link made above.
const { deliverScenario, probeScenario } = await import('./example-scenario.mjs');
const { queueScenario } = await import('./queue-scenario.mjs');
const { compatibilityDate } = readWranglerConfig();

const rows = [];
console.log('vectors through verify(), handle() and the Fetch adapter of the built package:');
for (const entry of runtimes.filter(({ label }) => wanted(label)))
  rows.push(print(await attempt(entry.label, () => vectorsOn(entry))));
console.log('the /publish entry of the built package (sanitizeHtml and its hast peers, contentHash, slug answers):');
for (const entry of runtimes.filter(({ label }) => wanted(label)))
  rows.push(print(await attempt(entry.label, () => publishOn(entry))));
console.log('examples, started and sent signed deliveries over HTTP, then probed (probe --writes):');
for (const [label, start] of exampleStarters().filter(([label]) => wanted(label)))
  rows.push(print(await attempt(label, () => exampleOn(start))));
console.log('the cloudflare-worker starter in queue mode, its queues bound (consumer, dead letters, probe --writes):');
const queueLabel = 'examples/cloudflare-worker (queues)';
if (wanted(queueLabel)) rows.push(print(await attempt(queueLabel, cloudflareQueueMode)));
console.log('the Durable Object dedup store of the built package, in workerd (test/cloudflare/durable-object.mjs):');
if (wanted('durableObjectDedupStore (workerd)'))
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
    // Copied out of the repository; without its queue bindings, so the handlers run inline.
    [
      'examples/cloudflare-worker (workerd)',
      async (token) => {
        const starter = copyStarterOut();
        try {
          const { main, durableObjects } = readWranglerConfig(starter.dir);
          const worker = await hostWorker('cloudflare-worker', main, {
            compatibilityDate,
            bindings: { WEBHOOK_TOKEN: token },
            durableObjects,
          });
          const stop = () => worker.stop().finally(starter.remove);
          return { url: new URL('webhook', worker.url).href, stop, version: worker.workerd };
        } catch (error) {
          starter.remove();
          throw error;
        }
      },
    ],
  ];
}

/**
 * The cloudflare-worker starter, copied out, with the queues its wrangler.toml declares: a
 * tap Worker (worker-host.mjs) may send to every queue the starter consumes and consumes every
 * queue it only sends to (the dead-letter queue), so the checks can read what ends there.
 */
async function cloudflareQueueMode() {
  const token = `whk_${randomBytes(16).toString('hex')}`;
  const starter = copyStarterOut();
  try {
    const { main, durableObjects, queueProducers, queueConsumers, r2Buckets } = readWranglerConfig(starter.dir);
    const consumed = Object.keys(queueConsumers);
    const produced = [...new Set(Object.values(queueProducers).map(({ queueName }) => queueName))];
    const [inboxQueue] = consumed;
    const deadLetterQueue = queueConsumers[inboxQueue]?.deadLetterQueue;
    if (consumed.length !== 1 || !deadLetterQueue)
      throw new Error(
        `wrangler.toml: expected one [[queues.consumers]] with a dead_letter_queue, got ${JSON.stringify(queueConsumers)}`,
      );
    const worker = await hostWorker('cloudflare-worker-queues', main, {
      compatibilityDate,
      bindings: { WEBHOOK_TOKEN: token },
      durableObjects,
      queueProducers,
      r2Buckets,
      // As declared, batches flushed after 0.1 s rather than wrangler's default 5 s.
      queueConsumers: Object.fromEntries(
        Object.entries(queueConsumers).map(([queue, settings]) => [queue, { ...settings, maxBatchTimeout: 0.1 }]),
      ),
      tap: {
        producers: { TAP_INBOX: inboxQueue },
        consumes: produced.filter((queue) => !consumed.includes(queue)),
      },
    });
    try {
      const scenario = await queueScenario(worker, token, { inbox: 'TAP_INBOX', deadLetterQueue });
      const probe = await probeScenario(new URL('webhook', worker.url).href, token);
      const failures = [...scenario.failures, ...probe.failures];
      return { passed: scenario.passed + probe.passed, failed: failures.length, failures, version: worker.workerd };
    } finally {
      await worker.stop();
    }
  } finally {
    starter.remove();
  }
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
