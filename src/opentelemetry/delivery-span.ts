import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { DeliveryEnd, DeliveryStart, DeliveryTrace, WebhookEvent } from 'webhook-cms-receiver';
import type { Instruments } from './instruments.js';
import {
  ATTR_DELIVERY_ID,
  ATTR_TENANT_ID,
  ATTR_TOKEN_INDEX,
  ATTR_ERROR_TYPE,
  ATTR_EVENT,
  ATTR_OUTCOME,
  ATTR_REFUSAL_CODE,
  ATTR_STATUS,
  MAX_UNVERIFIED_ID,
  SPAN_ENQUEUE,
  SPAN_HANDLER,
  SPAN_PROCESS,
  SPAN_RECEIVE,
} from './names.js';

const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * One delivery's span and measurements. The span is INTERNAL, a child of whatever span is
 * active when the delivery starts: the host's HTTP server span when its instrumentation made
 * one, so the receiver never makes a second server span for one request. Only names, ids,
 * codes and statuses are recorded: never the token, a signature, a header's text other than
 * the delivery id, or anything from the payload or a handler's error message (which may quote
 * the article).
 */
export class DeliverySpan implements DeliveryTrace {
  private readonly span: Span | undefined;
  private readonly parent: Context;
  private readonly receivedAt: number;
  private event: WebhookEvent | undefined;
  private verifyStartedAt: number | undefined;
  private handler: { span: Span | undefined; startedAt: number } | undefined;
  private producer: Span | undefined;

  constructor(
    private readonly instruments: Instruments,
    start: DeliveryStart,
  ) {
    // Read now: the receiver reads its clock on first use.
    this.receivedAt = start.receivedAt;
    this.parent = context.active();
    const process = start.kind === 'process';
    this.span = instruments.tracer?.startSpan(
      process ? SPAN_PROCESS : SPAN_RECEIVE,
      { kind: process ? SpanKind.CONSUMER : SpanKind.INTERNAL, links: linksOf(start.carrier) },
      this.parent,
    );
  }

  verifying(): void {
    this.verifyStartedAt = performance.now();
  }

  verified(event: WebhookEvent): void {
    this.event = event;
    const attributes = { [ATTR_EVENT]: event.name };
    if (this.verifyStartedAt !== undefined) {
      this.instruments.verifyDuration?.record(seconds(this.verifyStartedAt), attributes);
      this.verifyStartedAt = undefined;
    }
    // A service clock ahead of ours makes a negative lag, which a histogram cannot take: it counts as on time.
    const lag = Math.max(0, this.receivedAt / 1000 - event.timestamp);
    this.instruments.deliveryLag?.record(lag, attributes);
    if (!this.span) return;
    this.span.setAttribute(ATTR_EVENT, event.name);
    if (event.deliveryId !== null) this.span.setAttribute(ATTR_DELIVERY_ID, event.deliveryId);
    this.span.setAttribute(ATTR_TOKEN_INDEX, event.tokenIndex);
    if (event.tenant) this.span.setAttribute(ATTR_TENANT_ID, event.tenant.id);
  }

  runHandler<T>(run: () => T): T {
    const parent = this.span ? trace.setSpan(this.parent, this.span) : this.parent;
    const span = this.instruments.tracer?.startSpan(
      SPAN_HANDLER,
      { kind: SpanKind.INTERNAL, attributes: this.event ? { [ATTR_EVENT]: this.event.name } : {} },
      parent,
    );
    const handler = { span, startedAt: performance.now() };
    this.handler = handler;
    let result: T;
    try {
      // Active around the handler, so the spans of its own database and HTTP calls are its children.
      result = span ? context.with(trace.setSpan(parent, span), run) : run();
    } catch (error) {
      this.handlerDone(handler, error);
      throw error;
    }
    if (isThenable(result)) {
      result.then(
        () => this.handlerDone(handler),
        (error: unknown) => this.handlerDone(handler, error),
      );
    } else {
      this.handlerDone(handler);
    }
    return result;
  }

  /**
   * Queue mode: starts the PRODUCER span `webhook.enqueue` (a child of `webhook.receive`) and
   * writes its context into the job, so the worker's CONSUMER span links to the enqueue
   * itself. It ends with the answer: the receiver tells nothing in between.
   */
  inject(carrier: Record<string, string>): void {
    const parent = this.span ? trace.setSpan(this.parent, this.span) : this.parent;
    this.producer?.end();
    const attributes: Attributes = {};
    if (this.event) attributes[ATTR_EVENT] = this.event.name;
    if (this.event?.deliveryId) attributes[ATTR_DELIVERY_ID] = this.event.deliveryId;
    this.producer = this.instruments.tracer?.startSpan(SPAN_ENQUEUE, { kind: SpanKind.PRODUCER, attributes }, parent);
    propagation.inject(this.producer ? trace.setSpan(parent, this.producer) : parent, carrier);
  }

  end({ outcome, status, code, deliveryId }: DeliveryEnd): void {
    // Failed while the handler still runs: its deadline passed, and its span ends with the delivery's.
    if (this.handler && outcome === 'failed') this.handlerDone(this.handler, undefined, code ?? 'handler_timeout');
    const attributes: Attributes = { [ATTR_OUTCOME]: outcome };
    if (this.event) attributes[ATTR_EVENT] = this.event.name;
    if (outcome === 'refused' && code) attributes[ATTR_REFUSAL_CODE] = code;
    if (this.verifyStartedAt !== undefined) {
      // Verification that ended in a refusal: by code, as there is no verified event name.
      this.instruments.verifyDuration?.record(seconds(this.verifyStartedAt), code ? { [ATTR_REFUSAL_CODE]: code } : {});
    }
    this.instruments.deliveries?.add(1, attributes);
    if (this.producer) endSpan(this.producer, outcome, code, attributes);
    this.producer = undefined;
    const span = this.span;
    if (!span) return;
    if (status !== undefined) span.setAttribute(ATTR_STATUS, status);
    if (!this.event && typeof deliveryId === 'string') {
      span.setAttribute(ATTR_DELIVERY_ID, deliveryId.slice(0, MAX_UNVERIFIED_ID));
    }
    endSpan(span, outcome, code, attributes);
  }

  /** Ends the handler's span and measurement once: when it settles, or when the answer leaves without it. */
  private handlerDone(handler: { span: Span | undefined; startedAt: number }, error?: unknown, timeout?: string): void {
    if (this.handler !== handler) return;
    this.handler = undefined;
    const failed = error !== undefined || timeout !== undefined;
    const attributes: Attributes = { [ATTR_OUTCOME]: failed ? 'failed' : 'processed' };
    if (this.event) attributes[ATTR_EVENT] = this.event.name;
    this.instruments.handlerDuration?.record(seconds(handler.startedAt), attributes);
    const { span } = handler;
    if (!span) return;
    if (failed) {
      // The error's class, never its message: messages quote what the handler was working on.
      span.setAttribute(ATTR_ERROR_TYPE, timeout ?? errorType(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: timeout ?? 'the handler threw' });
    }
    span.end();
  }
}

/** Ends a delivery's span (or its enqueue's) with the outcome; only `failed` is an error. */
function endSpan(span: Span, outcome: DeliveryEnd['outcome'], code: string | undefined, attributes: Attributes): void {
  span.setAttributes(attributes);
  if (outcome === 'failed') {
    if (code) span.setAttribute(ATTR_ERROR_TYPE, code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? 'failed' });
  }
  span.end();
}

function errorType(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return typeof name === 'string' && /^[A-Za-z0-9_.$]{1,64}$/.test(name) ? name : '_OTHER';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Queue workers: a link to the span that received the job, when the job carries its context. */
function linksOf(carrier: Readonly<Record<string, string>> | undefined): Link[] | undefined {
  if (!carrier) return undefined;
  const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return linked && trace.isSpanContextValid(linked) ? [{ context: linked }] : undefined;
}
