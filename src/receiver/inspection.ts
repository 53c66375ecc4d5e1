import { isWebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import { safeHeaderLookup } from '../input/headers.js';
import type { Answer } from './answers.js';
import { callHook } from './hooks.js';
import type { ReceiverOptions } from './options.js';

/** What {@link inspectDelivery} is told about one delivery. */
export interface Inspection {
  receivedAt: number;
  method: string | undefined;
  headers: unknown;
  body: unknown;
  answer: Answer;
  event?: WebhookEvent;
  error?: unknown;
}

const READ = ['authorization', 'content-type', 'content-length', 'x-service-timestamp', 'x-service-signature'];
const ALSO = ['x-service-event', 'x-service-delivery-id', 'user-agent', 'x-signature', 'x-hub-signature-256'];

/** Hands one delivery to the `inspect` option, if set. Never throws, never changes the answer. */
export function inspectDelivery(options: ReceiverOptions, now: () => number, seen: Inspection): void {
  if (!options.inspect) return;
  const lookup = safeHeaderLookup(seen.headers);
  const headers: Record<string, string> = {};
  for (const name of [...READ, ...ALSO]) {
    const value = lookup(name);
    if (value !== undefined) headers[name] = name === 'authorization' ? redact(value) : value;
  }
  const body = seen.body instanceof Uint8Array || typeof seen.body === 'string' ? seen.body : undefined;
  const error = isWebhookError(seen.error) ? { code: seen.error.code, reason: seen.error.reason } : undefined;
  const { event } = seen;
  callHook(options, 'inspect', options.inspect, {
    receivedAt: seen.receivedAt,
    durationMs: Math.max(0, now() - seen.receivedAt),
    method: seen.method,
    headers,
    body,
    answer: seen.answer,
    ...(event ? { event: { name: event.name, type: event.type, deliveryId: event.deliveryId } } : {}),
    ...(error ? { error } : {}),
  });
}

/** Keeps the scheme, drops the credential: enough to see a wrong scheme, nothing to replay. */
function redact(authorization: string): string {
  const space = authorization.indexOf(' ');
  return space > 0 ? `${authorization.slice(0, space)} [redacted]` : '[redacted]';
}
