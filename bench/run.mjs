// `npm run bench`: builds the package if dist/ is older than its sources, then measures
// verify(), handle(), handle() in tenant mode, the Web Crypto path, the adapters, the 1 MiB streaming latency and the
// memory store against the hand-written limits and the peers, then queue mode on BullMQ (answer
// latency and worker throughput, for reference), prints ratio tables with
// PASS/FAIL per target (issue 23's), and
// writes bench/verify-throughput.svg. `--update-doc` also rewrites the tables in BENCHMARKS.md.
// `--quick` runs fewer, shorter rounds (a smoke test of the bench itself, not a measurement).

import { readFileSync, writeFileSync } from 'node:fs';
import { buildIfStale } from './lib/build.mjs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const started = Date.now();

buildIfStale();
const { verifySuite, handleSuite, webCryptoSuite } = await import('./suites/verify.mjs');
const { httpSuite } = await import('./suites/http.mjs');
const { latencySuite } = await import('./suites/latency.mjs');
const { memorySuite } = await import('./suites/memory.mjs');
const { storesSuite } = await import('./suites/stores.mjs');
const { dynamoDbSuite, dynamoDbReport, dynamoDbVerdicts } = await import('./suites/dynamodb.mjs');
const { concurrencySuite, concurrencyReport, concurrencyVerdicts } = await import('./suites/concurrency.mjs');
const { telemetrySuite, telemetryVerdicts } = await import('./suites/telemetry.mjs');
const { ledgerSuite, ledgerReport } = await import('./suites/ledger.mjs');
const { tenantsSuite, tenantsReport } = await import('./suites/tenants.mjs');
const { queueSuite, queueReport, queueVerdicts } = await import('./suites/queue.mjs');
const { queueMemorySuite, queueMemoryReport } = await import('./suites/queue-memory.mjs');
const { publishSuite, publishTable } = await import('./suites/publish.mjs');
const { machineLine, ratioTable, httpTable, hostContextTable, latencyTable, storesTable, verdictTable } = await import(
  './lib/report.mjs'
);
const { judge } = await import('./lib/targets.mjs');
const { throughputChart } = await import('./lib/chart.mjs');

const micro = quick ? { rounds: 5, batchMs: 10 } : { rounds: 21, batchMs: 25 };
const log = (text) => console.log(text);
const step = (name) => console.error(`… ${name} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

step('verify() against the limit and the peers');
const verify = await verifySuite(micro);
step('handle() with the memory store against the deduplicating limit');
const handle = await handleSuite({ ...micro, sizes: [1024, 16 * 1024] });
step('handle() with openTelemetry(): no SDK, and the SDK with a no-op exporter');
const telemetry = await telemetrySuite(micro);
step('handle() in tenant mode: the resolver cached, expired and called for a new token');
// 100 ms batches: a fresh receiver per batch makes short ones swing (see BENCHMARKS.md, Tenant mode).
const tenants = await tenantsSuite({ ...micro, batchMs: quick ? micro.batchMs : 100 });
step('the Web Crypto path');
const web = await webCryptoSuite(micro);
step('adapters over HTTP');
const http = await httpSuite(quick ? { rounds: 1, seconds: 0.5, warmup: 0 } : { rounds: 10, seconds: 1 });
step('1 MiB latency, streamed HMAC against buffer-then-hash');
const latencyRun = quick ? { rounds: 1, requests: 5 } : { rounds: 7, requests: 40 };
const latency = await latencySuite(latencyRun);
step('1 MiB latency with the body paced at 1 Gbit/s');
const paced = await latencySuite({ ...latencyRun, mbps: 1000 });
step('memory per remembered delivery');
const memory = await memorySuite({ count: quick ? 100_000 : 1_000_000 });
step('handle() with each dedup store (starts Redis, a Redis Cluster and Postgres where it can)');
const stores = await storesSuite(quick ? { rounds: 1, perRound: 20 } : { rounds: 7, perRound: 200 });
step('the DynamoDB store against Powertools idempotency on DynamoDB Local (starts it where Java is)');
const dynamodb = await dynamoDbSuite(quick ? { deliveries: 20 } : { deliveries: 200 });
step(
  'handle() over HTTP at 1, 16 and 64 concurrent requests with each shared store (starts Redis, a Redis Cluster and Postgres)',
);
const concurrency = await concurrencySuite(quick ? { rounds: 1, perCell: 100 } : { rounds: 5, perCell: 3_000 });
step('the delivery ledger over HTTP at 64 concurrent requests, Postgres and Redis, with and without (starts both)');
const ledger = await ledgerSuite(quick ? { rounds: 1, perCell: 100 } : { rounds: 7, perCell: 3_000 });
step('queue mode on BullMQ: answer latency, and worker throughput with 1, 2 and 4 workers (starts Redis)');
const queue = await queueSuite(
  quick
    ? { rounds: 1, requests: 20, drainRounds: 1, jobs: 40, warmup: 20 }
    : { rounds: 7, requests: 200, drainRounds: 5, jobs: 400 },
);

step('queue mode on BullMQ: Redis memory after many deliveries (starts Redis)');
const queueMemory = await queueMemorySuite({ checkpoints: quick ? [500] : [10_000, 100_000] });
step('/publish: recordSlug per delivery at 10,000 and 100,000 articles');
const publish = await publishSuite(quick ? { rounds: 3, perRound: 200 } : { rounds: 7, perRound: 2_000 });

const verdicts = judge({ verify, handle, web, http: http.rows, latency, memory });
verdicts.push(...telemetryVerdicts(telemetry), ...concurrencyVerdicts(concurrency), ...queueVerdicts(queue));
verdicts.push(...dynamoDbVerdicts(dynamodb));
const pinning = http.pinned
  ? 'server and load generator pinned to different cores with taskset'
  : 'not pinned (taskset or a second core missing)';
const sections = [
  `Machine: ${machineLine()}${quick ? ' (--quick: smoke run, not a measurement)' : ''}`,
  `### verify() against the limit and the peers\n\nMedian ratio of throughput to the limit in the same round (higher is better); median ops/s in brackets. The limit is what a user writes by hand with \`createHmac\`; "limit, fastest HMAC" is the same work with the fastest HMAC construction for the size (two \`crypto.hash\` calls over precomputed pad blocks up to 64 KiB, \`createHmac\` above).\n\n${ratioTable(verify)}`,
  `### handle() with the memory store against the deduplicating limit\n\nEvery delivery new (a fresh delivery id and signature), so dedup really claims and completes, one key per delivery; the limit also remembers each id in a \`Map\` with oldest-first eviction at 100,000.\n\n${ratioTable(handle)}`,
  `### handle() with telemetry\n\nThe same fresh 1 KiB deliveries and memory store as above, with \`openTelemetry()\`: the API installed and no SDK registered (the target: within 2 %), and the SDK recording every span and metric into a no-op exporter (batched spans, metrics aggregated between scrapes), for reference.\n\n${ratioTable(telemetry)}`,
  `### handle() in tenant mode\n\nFresh 1 KiB deliveries and the memory store, as above, against single-token \`handle()\`: a site's resolver answer cached; the cache expired before each delivery (\`tokenCacheMs: 1\` on a bench clock: the resolver is called, the tenant's prepared tokens reused); and each delivery with a token seen for the first time (the resolver is called and the token's HMAC key prepared). The resolver is async and answers from a \`Map\`: a database's own time is not counted. Resolver calls per delivery counted in a separate pass.\n\n${tenantsReport(tenants)}`,
  `### Web Crypto path against raw \`crypto.subtle.verify\`\n\n${ratioTable(web)}`,
  `### Adapters against a bare route in the same framework\n\nautocannon, 8 connections, loopback, ${pinning}; the same signed delivery repeated, dedup off (see notes).\n\n${httpTable(http.rows)}`,
  `### Adapters inside the host's AsyncLocalStorage\n\nThe same runs as above at 1 KiB, with a third route: the adapter behind the host's own \`AsyncLocalStorage\`, entered per request before the adapter (a node:http listener, an Express, Hono or Koa middleware, a Fastify \`onRequest\` hook, a Fetch handler calling \`run\`), whose handler fails unless it sees that store; rounds interleave all three routes.\n\n${hostContextTable(http.rows)}`,
  `### 1 MiB delivery latency: streamed HMAC against a route that buffers, then hashes\n\nOne request at a time on a kept-alive loopback connection, the body written at once; ${latency.pinned ? 'pinned as above' : 'not pinned'}. Medians over rounds of each round's p50, p90 and p99.\n\n${latencyTable(latency.rows)}`,
  `### The same, with the body paced like a 1 Gbit/s link\n\nThe client writes 64 KiB every 0.52 ms, as a delivery arriving over a network would; for reference, not a target.\n\n${latencyTable(paced.rows)}`,
  `### Memory of the memory store at ${memory.count.toLocaleString('en-US')} deliveries\n\n` +
    verdictTable([
      {
        target: 'bytes per delivery after claim + complete (one key: its id)',
        measured: `${memory.inWindow.toFixed(0)} B`,
        pass: memory.inWindow <= 256,
      },
      {
        target: 'bytes per delivery after a sample came back as duplicates',
        measured: `${memory.afterWindow.toFixed(0)} B`,
        pass: memory.afterWindow <= 256,
      },
    ]),
  `### handle() with each dedup store\n\nFresh 1 KiB deliveries (each claims and completes), one at a time, in wall time (a store mostly waits on its server); ${stores.rows.length} stores in interleaved rounds. Servers on loopback, started for the run (Postgres with fsync off); round trips (Redis scripts) and statements (Postgres, BEGIN and COMMIT included) counted per delivery in a separate pass.${stores.skipped.map(([name, why]) => ` Not measured: ${name} (${why}).`).join('')} The Durable Object store needs workerd and is not measured here.\n\n${storesTable(stores.rows)}`,
  `### The DynamoDB store against Powertools idempotency\n\nThe same receiver and handler (20 ms) on one DynamoDB Local, ${dynamodb.deliveries ?? 0} deliveries each, new then sent again; round trips are the SDK's HTTP attempts, capacity what ReturnConsumedCapacity reports (a write refused by its condition is charged but reports none, so those are counted apart).\n\n${dynamoDbReport(dynamodb)}`,
  `### handle() over HTTP under concurrency, with each shared store\n\n${concurrencyReport(concurrency)}`,
  `### The delivery ledger over HTTP\n\n${ledgerReport(ledger)}`,
  `### Queue mode on BullMQ\n\nA real Redis on loopback, started for the run. The answer p99 with the Redis store is a target (issue 37: ≤ 1.5 ms); the rest is for reference.\n\n${queueReport(queue)}`,
  `### Queue mode on BullMQ: Redis memory\n\n${queueMemoryReport(queueMemory)}`,
  `### /publish: recordSlug per delivery\n\nA rename of an existing article and a new article, alternating, in a history already holding that many articles; median over rounds. It must not grow with the history (it used to copy the whole history: 11 ms at 10,000 articles).\n\n${publishTable(publish)}`,
  `### Targets\n\nOne run; "rounds p25–p75" and "rounds min–max" are the spread of the per-round ratios behind each median.\n\n${verdictTable(verdicts)}`,
];
const report = sections.join('\n\n');
log(report);

writeFileSync(
  join(root, 'bench/verify-throughput.svg'),
  throughputChart(verify, 'verify throughput per body size (article.sync, node:crypto)'),
);
log(`\nWrote bench/verify-throughput.svg. Finished in ${((Date.now() - started) / 1000).toFixed(0)} s.`);

if (process.argv.includes('--update-doc')) {
  const path = join(root, 'BENCHMARKS.md');
  const doc = readFileSync(path, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!doc.includes(start) || !doc.includes(end)) throw new Error(`BENCHMARKS.md lacks the ${start} … ${end} markers`);
  writeFileSync(
    path,
    `${doc.slice(0, doc.indexOf(start) + start.length)}\n\n${report}\n\n${doc.slice(doc.indexOf(end))}`,
  );
  log('Updated the tables in BENCHMARKS.md.');
}
// A smoke run (CI) asserts no timing: only a real run fails on a missed target.
if (!quick && verdicts.some((v) => !v.pass)) process.exitCode = 1;
