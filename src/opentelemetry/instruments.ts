import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
  ValueType,
} from '@opentelemetry/api';
import {
  HANDLER_BUCKETS,
  LAG_BUCKETS,
  METRIC_DELIVERIES,
  METRIC_DELIVERY_LAG,
  METRIC_HANDLER_DURATION,
  METRIC_VERIFY_DURATION,
  VERIFY_BUCKETS,
} from './names.js';
import type { QueueGauges } from './queue-gauges.js';

const SCOPE = 'webhook-cms-receiver';

/** What one delivery records into: a tracer when tracing is on, instruments when metrics are. */
export interface Instruments {
  tracer: Tracer | undefined;
  deliveries: Counter | undefined;
  handlerDuration: Histogram | undefined;
  verifyDuration: Histogram | undefined;
  deliveryLag: Histogram | undefined;
}

// What the API hands out while no SDK is registered; a fresh proxy has no delegate, so it returns the no-op provider.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_METER = createNoopMeter();

/**
 * The tracer and instruments of the current providers, rebuilt when they change. The API's
 * global meter is not a proxy: instruments made before the SDK registers its provider would
 * stay no-ops forever, so the providers are looked up per delivery (two reads) and the
 * instruments made again when they changed. With neither provider recording, `current()` is
 * undefined and a delivery costs nothing more.
 */
export class InstrumentsCache {
  private tracerSource: TracerProvider | undefined;
  private meterSource: MeterProvider | undefined;
  private instruments: Instruments | undefined;

  constructor(
    private readonly tracerProvider: TracerProvider | undefined,
    private readonly meterProvider: MeterProvider | undefined,
    private readonly gauges?: QueueGauges,
  ) {}

  current(): Instruments | undefined {
    const tracerProvider = this.tracerProvider ?? trace.getTracerProvider();
    const tracerSource = tracerProvider instanceof ProxyTracerProvider ? tracerProvider.getDelegate() : tracerProvider;
    const meterSource = this.meterProvider ?? metrics.getMeterProvider();
    if (tracerSource !== this.tracerSource || meterSource !== this.meterSource) {
      this.tracerSource = tracerSource;
      this.meterSource = meterSource;
      const meter = meterSource.getMeter(SCOPE);
      this.instruments = build(tracerSource, meter);
      this.gauges?.attach(meter === NOOP_METER ? undefined : meter);
    }
    return this.instruments;
  }
}

function build(tracerProvider: TracerProvider, meter: Meter): Instruments | undefined {
  const tracer = tracerProvider === NOOP_TRACER_PROVIDER ? undefined : tracerProvider.getTracer(SCOPE);
  if (meter === NOOP_METER) {
    if (!tracer) return undefined;
    return {
      tracer,
      deliveries: undefined,
      handlerDuration: undefined,
      verifyDuration: undefined,
      deliveryLag: undefined,
    };
  }
  return {
    tracer,
    deliveries: meter.createCounter(METRIC_DELIVERIES, {
      description: 'Webhook deliveries received, by event and outcome (and refusal code for refusals).',
      unit: '{delivery}',
      valueType: ValueType.INT,
    }),
    handlerDuration: meter.createHistogram(METRIC_HANDLER_DURATION, {
      description: 'How long webhook handlers ran; the service gives up on an answer after 10 s.',
      unit: 's',
      advice: { explicitBucketBoundaries: HANDLER_BUCKETS },
    }),
    verifyDuration: meter.createHistogram(METRIC_VERIFY_DURATION, {
      description: 'How long checking a delivery took: size, token, timestamp, signature, envelope.',
      unit: 's',
      advice: { explicitBucketBoundaries: VERIFY_BUCKETS },
    }),
    deliveryLag: meter.createHistogram(METRIC_DELIVERY_LAG, {
      description:
        "Receipt time minus the envelope's timestamp: how late deliveries (and the service's retries) arrive.",
      unit: 's',
      advice: { explicitBucketBoundaries: LAG_BUCKETS },
    }),
  };
}
