// `npm run soak`: a steady stream of signed deliveries under chaos against two receiver
// processes (and, in queue mode, two workers), judged at the end. Exits 1 on any breach: a
// delivery answered 200 and lost, an effect twice with the transactional store, an effect of
// hostile traffic, a refusal with a status the contract does not give, a heap that grows.
// See BENCHMARKS.md, "Soak".

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../lib/build.mjs';
import { useTesting } from './bodies.mjs';
import { JUDGED_AGE, runChaos } from './chaos.mjs';
import { judgeEffects, missingEffects } from './judge.mjs';
import { createLedger } from './ledger.mjs';
import { latencyPerMinute, memorySlopes } from './metrics.mjs';
import { seededRandom } from './mix.mjs';
import { readOptions } from './options.mjs';
import { createTelemetry, createSlot } from './processes.mjs';
import { machine, writeReport } from './report.mjs';
import { snapshotRuntime } from './runtime.mjs';
import { closeAgent } from './send.mjs';
import { freePort, startDynamoDb, startFauxqs, startPostgres, startRedis } from './services.mjs';
import { prepareEffects, readEffects } from './stores.mjs';
import { createTraffic } from './traffic.mjs';
import { createWorld } from './world.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** What a failed or interrupted run must still stop: processes first, then their servers. */
const cleanups = [];
async function cleanUp() {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
}
/** Queue mode: how long the workers get to finish what was answered 200 before the judge looks. */
const DRAIN_TIMEOUT_MS = 90_000;

async function services({ store, queue }) {
  const started = [];
  const needs = {
    Redis: store === 'redis' || queue === 'bullmq',
    PostgreSQL: store.startsWith('postgres') || queue === 'pg-boss',
    DynamoDB: store === 'dynamodb',
    SQS: queue === 'sqs',
  };
  for (const [name, start] of [
    ['Redis', startRedis],
    ['PostgreSQL', startPostgres],
    ['DynamoDB', startDynamoDb],
    ['SQS', startFauxqs],
  ]) {
    if (!needs[name]) continue;
    const service = await start();
    if (service.missing) {
      await Promise.all(started.map((s) => s.stop()));
      throw new Error(`${name}: ${service.missing}`);
    }
    started.push({ name, ...service });
  }
  return started;
}

async function soak(options, { store, queue }, runtime) {
  const label = `${store}/${queue}${options.tenants ? ` with ${options.tenants} tenants` : ''}`;
  const log = (line) => console.log(`[soak ${label}] +${((Date.now() - startedAt) / 1000).toFixed(1)} s ${line}`);
  const timeline = [];
  const note = (line) => {
    timeline.push({ t: Date.now(), line });
    log(line);
  };
  let startedAt = Date.now();
  const random = seededRandom(options.seed);
  const dir = mkdtempSync(join(tmpdir(), 'wcr-soak-'));
  const running = await services({ store, queue });
  cleanups.unshift(async () => {
    for (const service of running) await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = (name) => running.find((s) => s.name === name)?.url;
  const config = {
    store,
    queue,
    dir,
    redisUrl: url('Redis'),
    databaseUrl: url('PostgreSQL'),
    dynamoDbUrl: url('DynamoDB'),
    sqsUrl: url('SQS'),
    credentialsFile: join(dir, 'credentials.json'),
    tenants: options.tenants,
    tokenCacheMs: 2_000,
    maxBodyBytes: 1.5 * 1024 * 1024,
    // Full within the warm-up (about 4 new ids/s per receiver at the default rate), so the
    // judged half sees it hold its bound; its cost at a million ids is test/soak-bounds'.
    memoryEntries: 2_000,
    sampleMs: options.minutes >= 10 ? 5_000 : 2_000,
    retryScale: options.retryScale,
    maxInFlight: 256,
    sabotage: options.sabotage,
  };
  await prepareEffects(config);
  const world = createWorld({
    file: config.credentialsFile,
    tenants: options.tenants,
    tokenCacheMs: config.tokenCacheMs,
    random,
  });
  const telemetry = createTelemetry();
  let clockOffsetMs = 0;
  const extraEnv = () => ({ SOAK_CLOCK_OFFSET_MS: String(clockOffsetMs) });
  const slots = [];
  cleanups.unshift(() => Promise.all(slots.map((slot) => slot.stop())));
  const targets = [];
  for (const i of [0, 1]) {
    const port = await freePort();
    targets.push({ port });
    slots.push(
      createSlot({ name: `receiver-${i}`, script: runtime.script('receiver'), config, port, telemetry, extraEnv }),
    );
  }
  if (queue !== 'none')
    for (const i of [0, 1])
      slots.push(createSlot({ name: `worker-${i}`, script: runtime.script('worker'), config, telemetry, extraEnv }));
  // One at a time: the first of them creates the tables and queues.
  for (const slot of slots) await slot.start();
  const load = { before: machine().load };

  const ledger = createLedger({ startedAt: (startedAt = Date.now()) });
  const traffic = createTraffic({ world, targets, ledger, config, random });
  const durationMs = options.minutes * 60_000;
  note(`traffic at ${options.rate}/s for ${options.minutes} min; seed ${options.seed}`);
  const setClock = (offsetMs) => {
    clockOffsetMs = offsetMs;
    for (const slot of slots) slot.send({ type: 'clock', offsetMs });
  };
  const chaos = options.chaos
    ? runChaos({ durationMs, slots, services: running, world, traffic, config, random, setClock, log: note })
    : Promise.resolve();
  if (options.heapSnapshots.length) {
    const heapDir = mkdtempSync(join(tmpdir(), 'wcr-soak-heap-'));
    note(`heap snapshots at minute ${options.heapSnapshots.join(', ')} into ${heapDir}`);
    for (const minute of options.heapSnapshots) {
      const timer = setTimeout(() => {
        for (const slot of slots.filter((s) => s.name.endsWith('-0')))
          slot.send({ type: 'snapshot', dir: heapDir, tag: `m${minute}` });
      }, minute * 60_000);
      cleanups.unshift(async () => clearTimeout(timer));
    }
  }
  let sent = 0;
  while (Date.now() - startedAt < durationMs) {
    const due = Math.floor(((Date.now() - startedAt) / 1000) * options.rate);
    for (; sent < due; sent++) traffic.tick();
    await sleep(5);
  }
  const endedAt = Date.now();
  note(`traffic stopped after ${sent} requests; draining retries`);
  await chaos;
  await traffic.drain();

  let effects = await readEffects(config);
  // Without a queue the effect is recorded before the 200 leaves: nothing to wait for.
  const drainUntil = queue === 'none' ? 0 : Date.now() + DRAIN_TIMEOUT_MS;
  while (missingEffects(ledger, effects) > 0 && Date.now() < drainUntil) {
    await sleep(2_000);
    effects = await readEffects(config);
  }
  note(`drained: ${effects.size} delivery ids with an effect`);
  const verdict = judgeEffects({ ledger, effects, exactlyOnce: store === 'postgres-tx' });
  load.after = machine().load;

  for (const slot of slots) await slot.stop();
  await cleanUp();
  closeAgent();

  // A slope is judged only on a warm process (JUDGED_AGE, chaos.mjs). A short run's growth
  // bound is loose enough for a young process's warm-up, so there every process that lived
  // through the half is judged.
  const slopeJudged = options.slopeBound !== null;
  const warmUpMs = slopeJudged ? durationMs * JUDGED_AGE : 0;
  const memory = memorySlopes(telemetry.samples, { startedAt, endedAt, warmUpMs });
  const breaches = [...ledger.breaches, ...verdict.breaches];
  for (const crash of telemetry.crashes)
    breaches.push({
      type: 'crash',
      detail: `${crash.name} ${crash.how} at +${((crash.t - startedAt) / 1000).toFixed(1)} s`,
    });
  const halfHours = (endedAt - startedAt) / 2 / 3_600_000;
  for (const kind of queue === 'none' ? ['receiver'] : ['receiver', 'worker'])
    if (slopeJudged && !memory.some((r) => r.judged && r.name.startsWith(kind)))
      breaches.push({ type: 'memory', detail: `no ${kind} lived warm through the last half: its slope is unjudged` });
  for (const row of memory.filter((r) => r.judged)) {
    if (options.slopeBound !== null && row.heapSlope > options.slopeBound)
      breaches.push({
        type: 'memory',
        detail: `${row.name} heap grew ${row.heapSlope.toFixed(1)} MiB/h over the last half (bound ${options.slopeBound} MiB/h)`,
      });
    if (options.slopeBound === null && row.heapSlope * halfHours > options.growthBound)
      breaches.push({
        type: 'memory',
        detail: `${row.name} heap grew ${(row.heapSlope * halfHours).toFixed(1)} MiB over the last half (bound ${options.growthBound} MiB)`,
      });
  }
  const result = {
    label,
    store,
    queue,
    options,
    config,
    startedAt,
    endedAt,
    sent,
    ledger,
    verdict,
    breaches,
    memory,
    latency: latencyPerMinute(ledger.latency),
    samples: telemetry.samples,
    logs: telemetry.logs,
    handles: telemetry.handles,
    restarts: Object.fromEntries(slots.map((slot) => [slot.name, slot.starts - 1])),
    timeline,
    load,
  };
  if (options.reportDir !== null) log(`report: ${writeReport(result)}`);
  return result;
}

const options = readOptions(process.argv.slice(2));
buildIfStale();
const runtime = snapshotRuntime();
useTesting(await import(runtime.entry('testing')));
let failed = false;
process.once('SIGINT', () => {
  console.log("interrupted: stopping the soak's processes and servers");
  cleanUp().finally(() => {
    runtime.remove();
    process.exit(130);
  });
});
for (const config of options.configs) {
  let result;
  try {
    result = await soak(options, config, runtime);
  } catch (error) {
    console.error(`[soak ${config.store}/${config.queue}] the run itself failed:`, error);
    await cleanUp();
    runtime.remove();
    process.exit(1);
  }
  const { figures } = result.verdict;
  console.log(
    `[soak ${result.label}] ${result.sent} requests; ${figures.accepted} deliveries answered 200, ${figures.gaveUp} given up after retries, ${figures.hostile} hostile; ${result.breaches.length} breach(es)`,
  );
  for (const breach of result.breaches.slice(0, 50)) console.log(`  BREACH ${breach.type}: ${breach.detail}`);
  if (result.breaches.length > 50) console.log(`  … and ${result.breaches.length - 50} more`);
  failed ||= result.breaches.length > 0;
}
runtime.remove();
process.exit(failed ? 1 : 0);
