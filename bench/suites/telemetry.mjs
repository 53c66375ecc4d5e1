// handle() at 1 KiB with telemetry: no instrumentation (the baseline), openTelemetry() with the
// API installed but no SDK registered (target: within 2 % of the baseline), and with the SDK
// recording every span and metric into a no-op exporter (for reference).
// Runs inside `npm run bench`, or alone: `node bench/suites/telemetry.mjs [--quick]`.

import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createReceiver } from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { compare, median, quartiles } from '../lib/measure.mjs';
import { formatRatio, machineLine, ratioTable, verdictTable } from '../lib/report.mjs';

/** Takes every span and drops it: what the SDK costs without the cost of any backend. */
const noopExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
  forceFlush: () => Promise.resolve(),
};

/** A reader nobody collects from: the SDK still aggregates every measurement, as between two scrapes. */
class IdleReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

function recordingProviders() {
  return {
    // Batched, as production runs it: spans are queued and exported in the background.
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] }),
    meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
  };
}

export const TELEMETRY_ROWS = {
  none: 'handle()',
  apiOnly: 'handle() + openTelemetry(), no SDK',
  sdk: 'handle() + openTelemetry() + SDK, no-op exporter',
};

/** One row, 1 KiB: each contender handles fresh deliveries (new id, new signature) with the memory store. */
export async function telemetrySuite({ rounds, batchMs, size = 1024 }) {
  const handlers = { 'article.sync': () => {} };
  const contenderOf = (name, options) => {
    const receiver = createReceiver({ token: TOKEN, ...options });
    return {
      name,
      async: true,
      fn: async (pool, i) => {
        const answer = await receiver.handle(pool[i], handlers);
        if (answer.status !== 200 || answer.body.duplicate)
          throw new Error(`${name} answered ${answer.status} ${JSON.stringify(answer.body)}`);
        return answer;
      },
    };
  };
  const contenders = [
    contenderOf(TELEMETRY_ROWS.none, {}),
    // No global provider is registered in the bench process: this is the API alone.
    contenderOf(TELEMETRY_ROWS.apiOnly, { instrumentation: openTelemetry() }),
    contenderOf(TELEMETRY_ROWS.sdk, { instrumentation: openTelemetry(recordingProviders()) }),
  ];
  const results = await compare(contenders, { rounds, batchMs, input: (count) => freshDeliveries(size, count) });
  return [{ label: `${size / 1024} KiB`, size, results }];
}

/** The target: the API without an SDK costs at most 2 % at 1 KiB. */
export function telemetryVerdicts(rows) {
  return rows.map((row) => {
    const ratios = row.results.find((r) => r.name === TELEMETRY_ROWS.apiOnly).ratios;
    const ratio = median(ratios);
    return {
      target: `handle() + openTelemetry() without an SDK ≥ 0.98× handle() at ${row.label}`,
      measured: formatRatio(ratio),
      spread: quartiles(ratios).map(formatRatio).join('–'),
      pass: ratio >= 0.98,
    };
  });
}

// Alone: `node bench/suites/telemetry.mjs [--quick] [--rounds=N]` prints this table only (build dist/ first).
if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length));
  const run = quick ? { rounds: 5, batchMs: 10 } : { rounds: rounds > 0 ? rounds : 21, batchMs: 25 };
  const rows = await telemetrySuite(run);
  console.log(`Machine: ${machineLine()}, ${run.rounds} rounds${quick ? ' (--quick)' : ''}\n`);
  console.log(ratioTable(rows));
  console.log(`\n${verdictTable(telemetryVerdicts(rows))}`);
}
