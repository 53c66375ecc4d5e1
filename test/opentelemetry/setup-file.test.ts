import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { articleSyncPayload, deliver } from 'webhook-cms-receiver/testing';
import { childLines } from '../helpers/child-lines.js';
import { listen, type RunningServer } from '../helpers/listen.js';

// The copy-paste setup in docs/opentelemetry, run exactly as its comment says
// (node --import ./telemetry.mjs server.mjs), with a real OTLP/HTTP receiver on loopback
// standing in for the collector and Prometheus' scrape done by hand.
const docs = fileURLToPath(new URL('../../docs/opentelemetry/', import.meta.url));
const token = 'otel-setup-file-token-7c1e5a';

interface OtlpSpan {
  name: string;
  kind: number;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A collector's OTLP/HTTP JSON endpoint: keeps every span and every raw body it is sent. */
async function otlpReceiver(): Promise<RunningServer & { spans: OtlpSpan[]; bodies: string[] }> {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const sent = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of sent.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return Object.assign(await listen(server), { spans, bodies });
}

async function freePort(): Promise<number> {
  const server = await listen(createServer());
  await server.close();
  return Number(new URL(server.url).port);
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

describe('docs/opentelemetry: the setup file users copy', () => {
  it('exports the delivery trace under the HTTP server span and serves the counters to Prometheus', async () => {
    const collector = await otlpReceiver();
    stops.push(() => collector.close());
    const metricsPort = await freePort();
    const child = spawn(process.execPath, ['--import', './telemetry.mjs', 'server.mjs'], {
      cwd: docs,
      env: {
        ...process.env,
        WEBHOOK_TOKEN: token,
        PORT: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = childLines(child, 'server.mjs');
    stops.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await lines.exited;
    });
    const port = (await lines.waitFor(/^listening on \d+$/)).split(' ')[2];

    const payload = articleSyncPayload({ article: { slug: 'traced-article' } });
    const result = await deliver(`http://127.0.0.1:${port}/webhook`, { token, payload });
    expect(result.summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl: 'https://blog.example.com/traced-article',
    });

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^webhook_deliveries_total\{[^}]*webhook_outcome="processed"[^}]*\} 1$/m);
    // The SDK's PrometheusExporter does not append the unit: the README's alert names follow what it serves.
    expect(metrics).toMatch(/^webhook_handler_duration_count\{[^}]*\} 1$/m);
    expect(metrics).toMatch(/^webhook_delivery_lag_bucket\{/m);

    await expect
      .poll(() => collector.spans.map((span) => span.name).sort(), { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['webhook.handler', 'webhook.receive']));
    const byName = (name: string) => collector.spans.find((span) => span.name === name)!;
    const receive = byName('webhook.receive');
    // The server span ends after the answer is written, so it may come in a later batch.
    await expect
      .poll(() => collector.spans.find((span) => span.spanId === receive.parentSpanId)?.kind, { timeout: 15_000 })
      .toBe(2); // SPAN_KIND_SERVER: webhook.receive is a child of the HTTP server span
    expect(byName('webhook.handler').parentSpanId).toBe(receive.spanId);

    // SIGTERM flushes and stops the process, as the setup file's handler promises.
    child.kill('SIGTERM');
    await lines.exited;
    expect(child.signalCode).toBe('SIGTERM');
    expect(collector.bodies.join('\n')).not.toContain(token);
  }, 60_000);
});
