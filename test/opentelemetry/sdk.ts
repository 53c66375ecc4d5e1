import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type Attributes, context, propagation, trace } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** A reader that exports nowhere: tests collect from it when they want to look. */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A point of one metric, its attributes and value (a number, or a histogram's buckets). */
export interface Point {
  attributes: Attributes;
  value: number | Histogram;
}

/**
 * An OpenTelemetry SDK kept in memory: spans in an in-memory exporter, metrics read on demand.
 *
 * @example
 * ```ts
 * const sdk = memorySdk();
 * const receiver = createReceiver({ token, instrumentation: openTelemetry(sdk.providers) });
 * ```
 */
export function memorySdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<ResourceMetrics> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    return resourceMetrics;
  };
  return {
    providers: { tracerProvider, meterProvider },
    exporter,
    reader,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    metrics: collect,
    /** Every point of the metric named `name`, with its unit. */
    async points(name: string): Promise<{ unit: string; points: Point[] }> {
      const metrics = (await collect()).scopeMetrics.flatMap((scope) => scope.metrics);
      const metric = metrics.find((m) => m.descriptor.name === name);
      if (!metric) return { unit: '', points: [] };
      const points = (metric.dataPoints as DataPoint<number | Histogram>[]).map((p) => ({
        attributes: p.attributes,
        value: p.value,
      }));
      return { unit: metric.descriptor.unit, points };
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** A context manager, so the handler's span is active inside it (`trace.getActiveSpan()`). */
export function enableContext(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  return () => {
    context.disable();
  };
}

/**
 * The W3C propagators, registered globally as the Node SDK registers them: without one a
 * queued job carries no trace context, and the worker's span has nothing to link to.
 */
export function enablePropagation(): () => void {
  new NodeTracerProvider().register({ contextManager: null });
  return () => {
    propagation.disable();
    trace.disable();
  };
}

/** Everything a span holds as text, for the secrets scan. */
export function spanText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events,
    links: span.links,
    status: span.status,
    resource: span.resource.attributes,
  });
}

/** An article every text of which is secret: no span, attribute or metric may carry any of it. */
export const embargoedArticle = {
  id: 'article-embargoed-1',
  title: 'Quarterly numbers nobody may see yet',
  slug: 'quarterly-numbers-embargoed',
  excerpt: 'Embargoed excerpt: revenue up 41 percent',
  content_markdown: 'Embargoed body text with the merger name Blue Heron',
  content_html: '<p>Embargoed body text with the merger name Blue Heron</p>',
};

/** The texts of {@link embargoedArticle} a scan looks for, fragments included. */
export const embargoedTexts = [
  embargoedArticle.title,
  embargoedArticle.slug,
  embargoedArticle.excerpt,
  'Blue Heron',
  'revenue up 41',
];
