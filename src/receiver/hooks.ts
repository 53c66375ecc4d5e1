import { isWebhookError, WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { safeHeaderLookup } from '../input/headers.js';
import { describeThrown } from '../internal/describe.js';
import { type LogFields, type ReceiverLog, receiverLog } from './logger.js';
import type { ReceiverOptions } from './options.js';

/** At most one refusal line per code in this window; the rest are counted. */
const REFUSAL_WINDOW_MS = 60_000;

/** One receiver's log and its refusal counters, made on first use. */
interface Reporting {
  log: ReceiverLog;
  windows: Map<string, { startedAt: number; omitted: number }>;
}

// Keyed by the options object, which createReceiver never mutates: one per receiver.
const reportings = new WeakMap<ReceiverOptions, Reporting>();

function reportingOf(options: ReceiverOptions): Reporting {
  let reporting = reportings.get(options);
  if (!reporting) {
    reporting = { log: receiverLog(options.logger), windows: new Map() };
    reportings.set(options, reporting);
  }
  return reporting;
}

/**
 * Calls a user hook. A hook that throws must not change the answer to the service, so its
 * error is logged and dropped.
 */
export function callHook<A extends unknown[]>(
  options: ReceiverOptions,
  name: string,
  hook: ((...args: A) => void) | undefined,
  ...args: A
): void {
  if (!hook) return;
  try {
    hook(...args);
  } catch (error) {
    reportingOf(options).log.error(`the ${name} hook threw; the delivery was answered as if it had not.`, {
      err: error,
    });
  }
}

/**
 * Tells the user about a failure the service only sees as a status: through `onError`, or,
 * without one, one error line, because a silent 500 is a bug. The line names the event and
 * delivery, never the token, a signature or the payload.
 */
export function reportError(options: ReceiverOptions, error: unknown, event: WebhookEvent): void {
  if (options.onError) {
    callHook(options, 'onError', options.onError, error, event);
    return;
  }
  const tenant = event.tenant ? ` of tenant ${event.tenant.id}` : '';
  const what = `${event.name} delivery ${event.deliveryId ?? '(no delivery id)'}${tenant}`;
  const detail = isWebhookError(error) ? `${error.code}: ${error.reason}` : describeThrown(error);
  reportingOf(options).log.error(`${what}: ${detail} (pass onError to createReceiver to handle this)`, {
    event: event.name,
    deliveryId: event.deliveryId,
    ...(event.tenant ? { tenant: event.tenant.id } : {}),
    ...(isWebhookError(error) ? { code: error.code, reason: error.reason } : {}),
    err: error,
  });
}

/**
 * A fault of the receiver itself rather than of one delivery (a token source that failed to
 * read): to `onError` with no event, or else one error line.
 */
export function reportReceiverError(options: ReceiverOptions, error: WebhookError): void {
  if (options.onError) {
    // No delivery to name: the hook's documentation says `event` is undefined here.
    callHook(options, 'onError', options.onError, error, undefined as unknown as WebhookEvent);
    return;
  }
  reportingOf(options).log.error(`${error.code}: ${error.reason} (pass onError to createReceiver to handle this)`, {
    code: error.code,
    reason: error.reason,
    err: error,
  });
}

/**
 * Turns anything thrown during verification into a WebhookError and reports it: to
 * `onRejected`, or else as a `warn` line, at most one per code per minute. A host fault (a
 * 5xx: a body a parser consumed) is logged at `error` even with `onRejected`, since it names
 * a fix in the host's own code.
 */
export function reportRejection(options: ReceiverOptions, thrown: unknown, headers: unknown): WebhookError {
  const error = isWebhookError(thrown)
    ? thrown
    : new WebhookError('internal_error', `verification failed unexpectedly: ${describeThrown(thrown)}`, {
        cause: thrown,
      });
  // A 503 for a planned rotation (a request kept until its token is known) is no fault of this host.
  const hostFault = error.status >= 500 && error.code !== 'token_rotating';
  const lookup = safeHeaderLookup(headers);
  const deliveryId = lookup('x-service-delivery-id') ?? null;
  if (options.onRejected) {
    callHook(options, 'onRejected', options.onRejected, error, {
      reason: error.reason,
      deliveryId,
      eventHeader: lookup('x-service-event') ?? null,
    });
    if (!hostFault) return error;
  }
  const reporting = reportingOf(options);
  const omitted = admitLine(reporting, error.code, Date.now());
  if (omitted === undefined) return error;
  const fields: LogFields = { status: error.status, code: error.code, reason: error.reason };
  if (deliveryId !== null) fields.deliveryId = deliveryId;
  if (omitted > 0) fields.omitted = omitted;
  // A 5xx is this server's fault, not the sender's: worded so nobody looks for a bad delivery.
  const what = !hostFault
    ? 'refused a delivery'
    : error.code === 'body_already_parsed'
      ? 'could not check a delivery, this server is misconfigured'
      : 'could not check a delivery';
  const message = `${what}: ${error.status} ${error.code}: ${error.reason}${deliveryId ? ` (delivery ${deliveryId})` : ''}`;
  if (hostFault) reporting.log.error(message, fields);
  else reporting.log.warn(message, fields);
  return error;
}

/** Undefined when this code already had its line this minute (counted); else how many were left out before. */
function admitLine(reporting: Reporting, code: string, now: number): number | undefined {
  const window = reporting.windows.get(code);
  if (window && now - window.startedAt < REFUSAL_WINDOW_MS) {
    window.omitted++;
    return undefined;
  }
  reporting.windows.set(code, { startedAt: now, omitted: 0 });
  return window?.omitted ?? 0;
}

/** The receiver's log (its `logger` option), for lines that belong to no delivery. */
export function reportingLog(options: ReceiverOptions): ReceiverLog {
  return reportingOf(options).log;
}
