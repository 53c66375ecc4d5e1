import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { DeliveryQueue, Instrumentation } from 'webhook-cms-receiver';
import { DeliverySpan } from './delivery-span.js';
import { InstrumentsCache } from './instruments.js';
import { QueueGauges } from './queue-gauges.js';

/**
 * Options of {@link openTelemetry}.
 *
 * @example
 * ```ts
 * const instrumentation = openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
 * ```
 */
export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global tracer provider, looked up per delivery, so registering the SDK later works. */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider, looked up per delivery likewise. */
  meterProvider?: MeterProvider;
  /**
   * Queue mode: the queue whose backlog to report, as the gauges `webhook.queue.depth`
   * (`{job}`: jobs no worker has taken yet, retries waiting out their delay included) and
   * `webhook.queue.oldest_age` (seconds the job next in line has waited; 0 when none is ready),
   * read from its `stats()` each time a metric reader collects and never otherwise. Any
   * process may report them (the receiver's, a worker's, a small one of their own); the values
   * are the engine's, so aggregate them with max. A `stats()` that throws, rejects or takes
   * over 5 s reports nothing that collection. A queue without `stats()` (Cloudflare Queues:
   * a Worker cannot read its queue's backlog) reports no gauges.
   */
  queue?: Pick<DeliveryQueue, 'stats'>;
}

/**
 * Reports every delivery to OpenTelemetry: a span `webhook.receive` (INTERNAL, a child of the
 * host's HTTP server span when there is one) with a child `webhook.handler` around the
 * handler, and the metrics `webhook.deliveries`, `webhook.handler.duration`,
 * `webhook.verify.duration` and `webhook.delivery.lag`, and with `queue` the gauges
 * `webhook.queue.depth` and `webhook.queue.oldest_age`. Attributes: `webhook.event`,
 * `webhook.delivery_id`, `webhook.outcome`, `webhook.refusal.code`,
 * `http.response.status_code`; the span's status is an error only when the delivery failed
 * (a refusal is the receiver doing its job). Never the token, a signature or payload content.
 * With no SDK registered it records nothing and costs two lookups per delivery.
 *
 * @example
 * ```ts
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
 *
 * // After the Node SDK is started (with its HTTP instrumentation, for the parent span):
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN!, instrumentation: openTelemetry() });
 *
 * // Queue mode, with the queue's backlog as gauges:
 * const queue = bullmqQueue(new Queue('webhooks', { connection }));
 * const queued = createReceiver({ token: process.env.WEBHOOK_TOKEN!, queue, instrumentation: openTelemetry({ queue }) });
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Instrumentation {
  const stats = options.queue?.stats;
  const gauges = typeof stats === 'function' ? new QueueGauges(() => stats.call(options.queue)) : undefined;
  const cache = new InstrumentsCache(options.tracerProvider, options.meterProvider, gauges);
  // The gauges go on the meter now, not at the first delivery: a worker may have none for hours.
  if (gauges) cache.current();
  return {
    startDelivery(start) {
      const instruments = cache.current();
      return instruments ? new DeliverySpan(instruments, start) : undefined;
    },
  };
}
