// telemetry.mjs: OpenTelemetry for a webhook endpoint, started before the server:
//
//   npm install @opentelemetry/api @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-http \
//     @opentelemetry/exporter-prometheus @opentelemetry/instrumentation @opentelemetry/instrumentation-http
//   node --import ./telemetry.mjs server.mjs
//
// Traces go over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318: a
// collector, Jaeger, Tempo, Honeycomb…). Metrics are served for Prometheus at :9464/metrics
// (OTEL_EXPORTER_PROMETHEUS_PORT and _HOST change it). The receiver reports to whichever SDK is
// registered here once you pass `instrumentation: openTelemetry()` to createReceiver.
import { register } from 'node:module';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';

// An ESM server imports node:http through the ESM loader, which instrumentations only see
// with this hook; without it the HTTP server span is missing and webhook.receive is a root span.
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'webhook-endpoint',
  traceExporter: new OTLPTraceExporter(),
  metricReader: new PrometheusExporter(),
  // The HTTP server span is the parent of `webhook.receive`, so a delivery's trace starts at the socket.
  instrumentations: [new HttpInstrumentation()],
});
sdk.start();

// Spans are sent in batches: flush the last ones when the platform stops the process. When the
// server has its own handler for the signal, it decides when to exit; otherwise exit as Node would.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    const handledElsewhere = process.listenerCount(signal) > 0;
    sdk.shutdown().finally(() => {
      if (!handledElsewhere) process.kill(process.pid, signal);
    });
  });
}
