/**
 * OpenTelemetry for the receiver: a span per delivery and the metrics to operate an endpoint,
 * on `@opentelemetry/api` (an optional peer dependency of this entry only).
 *
 * @example
 * ```ts
 * import { createReceiver } from 'webhook-cms-receiver';
 * import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN!, instrumentation: openTelemetry() });
 * ```
 * @module webhook-cms-receiver/opentelemetry
 */
export { openTelemetry, type OpenTelemetryOptions } from './open-telemetry.js';
