import type { WebhookErrorCode } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { headerLookup } from '../input/headers.js';
import { isThenable } from '../internal/maybe.js';
import type { Answer } from './answers.js';
import type { DeliveryEnd, DeliveryStart, DeliveryTrace, Instrumentation } from './instrumentation.js';

/**
 * The core's view of a trace: every call guarded, `end` once, and whether the handler is
 * still running when the answer goes out (which only a timeout allows).
 */
export class GuardedTrace {
  private ended = false;
  private handlerPending = false;
  constructor(private readonly trace: DeliveryTrace) {}

  verifying(): void {
    try {
      this.trace.verifying();
    } catch {
      // A broken exporter must not refuse a good delivery.
    }
  }

  verified(event: WebhookEvent): void {
    try {
      this.trace.verified(event);
    } catch {}
  }

  runHandler<T>(run: () => T): T {
    let called = false;
    const tracked = (): T => {
      called = true;
      this.handlerPending = true;
      let result: T;
      try {
        result = run();
      } catch (error) {
        this.handlerPending = false;
        throw error;
      }
      if (!isThenable(result)) {
        this.handlerPending = false;
        return result;
      }
      const settled = () => {
        this.handlerPending = false;
      };
      result.then(settled, settled);
      return result;
    };
    try {
      return this.trace.runHandler(tracked);
    } catch (error) {
      // Thrown by the handler: the receiver's to answer. Thrown before it ran: run it untraced.
      if (called) throw error;
      return tracked();
    }
  }

  /** Queue mode: the trace context to store with the job, so the worker's span can link to this one. */
  inject(carrier: Record<string, string>): void {
    try {
      this.trace.inject?.(carrier);
    } catch {}
  }

  /** Ends with a refusal or failure found while checking the delivery. */
  endRefused(error: { status: number; code: WebhookErrorCode }, headers: unknown): void {
    const outcome = error.status >= 500 ? 'failed' : 'refused';
    this.end({ outcome, status: error.status, code: error.code, deliveryId: deliveryIdOf(headers) });
  }

  /** Ends with the pipeline's answer. */
  endAnswered(answer: Answer): void {
    this.end(endOf(answer, this.handlerPending));
  }

  end(end: DeliveryEnd): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.trace.end(end);
    } catch {}
  }
}

/** A receiver's delivery start, its clock read on first use and then kept. */
class ReceiveStart implements DeliveryStart {
  readonly kind = 'receive';
  private at: number | undefined;
  constructor(private readonly now: () => number) {}

  get receivedAt(): number {
    this.at ??= this.now();
    return this.at;
  }
}

/** Starts a delivery's trace; an instrumentation that throws or declines gives none. */
export function startTrace(instrumentation: Instrumentation | undefined, now: () => number): GuardedTrace | null {
  if (!instrumentation) return null;
  try {
    const trace = instrumentation.startDelivery(new ReceiveStart(now));
    return trace ? new GuardedTrace(trace) : null;
  } catch {
    return null;
  }
}

/**
 * The handlers with the event's own handler run inside the trace, so the `webhook.handler`
 * span covers exactly the user's code. Built only for a traced delivery.
 */
export function tracedHandlers<H extends object | undefined>(trace: GuardedTrace, handlers: H, event: WebhookEvent): H {
  const handler = (handlers as Record<string, unknown> | undefined)?.[event.type];
  if (typeof handler !== 'function') return handlers;
  const wrapped = (...args: unknown[]) => trace.runHandler(() => handler.call(undefined, ...args));
  return { [event.type]: wrapped } as H;
}

/** The public texts the pipeline answers with, back to their codes (each text is one code there). */
const PIPELINE_CODES = new Map<unknown, WebhookErrorCode>([
  ['Handler failed', 'handler_failed'],
  ['Dedup store unavailable', 'dedup_unavailable'],
  ['Queue unavailable', 'queue_unavailable'],
  ['Delivery in progress', 'delivery_in_progress'],
]);

/** Reads the outcome off a pipeline answer. A 500 while the handler still runs can only be its deadline. */
function endOf({ status, body }: Answer, handlerPending: boolean): DeliveryEnd {
  const flags = body as { duplicate?: unknown; stale?: unknown; queued?: unknown; error?: unknown };
  if (status === 200) {
    const outcome = flags.duplicate ? 'duplicate' : flags.stale ? 'stale' : flags.queued ? 'queued' : 'processed';
    return { outcome, status };
  }
  let code = PIPELINE_CODES.get(flags.error);
  if (code === 'handler_failed' && handlerPending) code = 'handler_timeout';
  return { outcome: status === 409 ? 'in_progress' : 'failed', status, code };
}

/** The unverified delivery id header of a refused request; headers that throw give none. */
function deliveryIdOf(headers: unknown): string | null {
  try {
    return headerLookup(headers)('x-service-delivery-id') ?? null;
  } catch {
    return null;
  }
}
