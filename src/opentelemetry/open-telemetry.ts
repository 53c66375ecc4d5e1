import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { Instrumentation } from 'webhook-cms-receiver';
import { DeliverySpan } from './delivery-span.js';
import { InstrumentsCache } from './instruments.js';

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
}

/**
 * Reports every delivery to OpenTelemetry: a span `webhook.receive` (INTERNAL, a child of the
 * host's HTTP server span when there is one) with a child `webhook.handler` around the
 * handler, and the metrics `webhook.deliveries`, `webhook.handler.duration`,
 * `webhook.verify.duration` and `webhook.delivery.lag`. Attributes: `webhook.event`,
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
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Instrumentation {
  const cache = new InstrumentsCache(options.tracerProvider, options.meterProvider);
  return {
    startDelivery(start) {
      const instruments = cache.current();
      return instruments ? new DeliverySpan(instruments, start) : undefined;
    },
  };
}
