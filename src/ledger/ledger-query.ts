import { describeValue } from '../internal/describe.js';
import type { LedgerQuery } from './ledger-row.js';
import type { LedgerFilter } from './ledger-store.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
const CLASSES: Record<string, [number, number]> = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] };

/** A time option as epoch ms; undefined stays undefined, anything else not a time throws naming it. */
export function timeOption(value: number | Date | undefined, label: string): number | undefined {
  if (value === undefined) return undefined;
  const time = value instanceof Date ? value.getTime() : value;
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    throw new RangeError(`${label} must be a Date or epoch milliseconds, got ${describeValue(value)}.`);
  }
  return time;
}

/** A user's query as a store's filter: times in ms, the status as a range, the limit settled. */
export function ledgerFilter(query: LedgerQuery = {}): LedgerFilter {
  const filter: LedgerFilter = { limit: DEFAULT_LIMIT };
  const since = timeOption(query.since, 'ledger.list: since');
  const until = timeOption(query.until, 'ledger.list: until');
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  const { status, limit } = query;
  if (status !== undefined) {
    const range = typeof status === 'number' && Number.isInteger(status) ? [status, status] : CLASSES[String(status)];
    if (!range) {
      throw new RangeError(
        `ledger.list: status must be an HTTP status or '2xx', '4xx', '5xx', got ${describeValue(status)}.`,
      );
    }
    [filter.statusFrom, filter.statusTo] = range;
  }
  if (limit !== undefined) {
    if (!(Number.isInteger(limit) && limit > 0)) {
      throw new RangeError(`ledger.list: limit must be a positive integer, got ${describeValue(limit)}.`);
    }
    filter.limit = Math.min(limit, MAX_LIMIT);
  }
  for (const key of ['event', 'article', 'tenant', 'deliveryId', 'cursor'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new TypeError(`ledger.list: ${key} must be a string, got ${describeValue(value)}.`);
    filter[key] = value;
  }
  if (query.verified !== undefined) filter.verified = query.verified === true;
  return filter;
}
