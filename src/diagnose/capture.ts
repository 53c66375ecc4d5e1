import type { InspectedDelivery } from 'webhook-cms-receiver';
import { decodeBase64, encodeBase64, utf8Bytes, utf8Text } from './bytes.js';

// The captured-delivery JSON line has one owner, this file: the reader (`parseCapture`,
// `readRecord`) and the writer (`captureRecord`, `bodyFields`) the CLI's `sign --json`, the
// inspector's recorder and the inspect page's replay all use.

/** A request as a capture line holds it: what {@link diagnoseDelivery} takes, plus when it arrived. */
export interface CapturedDelivery {
  headers: Record<string, string | string[]>;
  /** The raw body; absent when the capture holds none. */
  body?: Uint8Array;
  /** When the receiver got it, in milliseconds, if the capture says. */
  receivedAt?: number;
  /** True when the capture kept only the start of the body: then the signature cannot be checked. */
  bodyTruncated?: boolean;
  /**
   * What the receiver that recorded it answered, when the capture says (the inspector writes
   * `status` and `error`): a refusal's reason survives even when the body and the token do not.
   */
  recorded?: RecordedOutcome;
}

/** A receiver's answer as an inspector record keeps it. */
export interface RecordedOutcome {
  status: number;
  /** The stable error code, e.g. `invalid_token`. */
  code?: string;
  /** The receiver's internal reason (what `onRejected` got). */
  reason?: string;
}

/** One line of the inspector's file: a capture line with the receiver's verdict around it. */
export interface InspectorRecord {
  id: string;
  receivedAt: string;
  durationMs: number;
  method: string | undefined;
  headers: Record<string, string>;
  /** The body as UTF-8 text, or `bodyBase64` when it is not valid UTF-8. */
  body?: string;
  bodyBase64?: string;
  bodyTruncated?: true;
  status: number;
  answer: unknown;
  event?: InspectedDelivery['event'];
  error?: InspectedDelivery['error'];
  diagnosis?: unknown;
}

/** A capture line as the inspect page's replay reads it: the capture, plus the record's id and event. */
export interface StoredDelivery extends CapturedDelivery {
  id?: string;
  event?: { name?: string; deliveryId?: string | null };
}

/**
 * Reads one JSON line as the inspector and the CLI's `--json` write it:
 * `{ "headers": {…}, "body": "<UTF-8 text>" }` or `{ "headers": {…}, "bodyBase64": "…" }`,
 * optionally with `receivedAt` (milliseconds or an ISO date) and `bodyTruncated`. Throws a
 * TypeError naming what is wrong.
 *
 * @example
 * ```ts
 * const { headers, body, receivedAt } = parseCapture(lastLine);
 * const diagnosis = await diagnoseDelivery({ headers, body, token, now: receivedAt });
 * ```
 */
export function parseCapture(line: string): CapturedDelivery {
  const { id: _id, event: _event, ...capture } = readRecord(line);
  return capture;
}

/** {@link parseCapture}, keeping the inspector record's `id` and `event` too. Throws a TypeError naming what is wrong. */
export function readRecord(line: string): StoredDelivery {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    throw new TypeError(`the capture is not a JSON line (${(error as Error).message})`);
  }
  const record = json as Record<string, unknown> | null;
  if (typeof record !== 'object' || record === null || typeof record.headers !== 'object' || record.headers === null)
    throw new TypeError('the capture needs a "headers" object, and "body" (UTF-8 text) or "bodyBase64"');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string')))
      headers[name] = value as string | string[];
  }
  const body = bodyOf(record);
  const receivedAt = timeOf(record.receivedAt);
  const recorded = outcomeOf(record);
  const event = eventOf(record.event);
  return {
    ...(typeof record.id === 'string' ? { id: record.id } : {}),
    ...(event ? { event } : {}),
    headers,
    ...(body ? { body } : {}),
    ...(receivedAt === undefined ? {} : { receivedAt }),
    ...(record.bodyTruncated === true ? { bodyTruncated: true } : {}),
    ...(recorded ? { recorded } : {}),
  };
}

/** The inspector's `status` and `error: { code, reason }`, if the line has them. */
function outcomeOf(record: Record<string, unknown>): RecordedOutcome | undefined {
  const { status, error } = record;
  if (typeof status !== 'number' || !Number.isInteger(status)) return undefined;
  const { code, reason } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  return {
    status,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
  };
}

/** The event name and delivery id the receiver read, if the line has them. */
function eventOf(value: unknown): StoredDelivery['event'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, deliveryId } = value as Record<string, unknown>;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof deliveryId === 'string' || deliveryId === null ? { deliveryId } : {}),
  };
}

/** Milliseconds, or an ISO 8601 date (the inspector writes one). */
function timeOf(value: unknown): number | undefined {
  // Past ECMAScript's ±8.64e15 ms no Date can hold it: treated as absent, not as a time.
  if (typeof value === 'number' && Math.abs(value) <= 8.64e15) return value;
  const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}

function bodyOf(record: Record<string, unknown>): Uint8Array | undefined {
  if (typeof record.bodyBase64 === 'string') {
    const bytes = decodeBase64(record.bodyBase64);
    if (!bytes) throw new TypeError('the capture\'s "bodyBase64" is not base64');
    return bytes;
  }
  return typeof record.body === 'string' ? utf8Bytes(record.body) : undefined;
}

/**
 * Writes a request as a capture line: the body as text when it is valid UTF-8 (so the line
 * reads well), else as base64, so every byte survives.
 *
 * @example
 * ```ts
 * appendFileSync('captures.jsonl', `${captureLine({ headers, body })}\n`);
 * ```
 */
export function captureLine(delivery: CapturedDelivery): string {
  return JSON.stringify(captureRecord(delivery));
}

/** The object {@link captureLine} writes, for callers that add fields of their own. */
export function captureRecord(delivery: CapturedDelivery): Record<string, unknown> {
  const { headers, body, receivedAt } = delivery;
  return {
    ...(receivedAt === undefined ? {} : { receivedAt }),
    headers,
    ...(body === undefined ? {} : bodyFields(body)),
  };
}

/** A body as a capture line holds it: text when it is valid UTF-8, else base64, so every byte survives. */
export function bodyFields(body: Uint8Array): { body: string } | { bodyBase64: string } {
  const text = utf8Text(body);
  return text === undefined ? { bodyBase64: encodeBase64(body) } : { body: text };
}
