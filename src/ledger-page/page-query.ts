import type { LedgerQuery } from '../ledger/ledger-row.js';

/** The filters of the page as the GET form and links carry them: text, as typed. */
export interface PageFilters {
  status: string;
  event: string;
  article: string;
  tenant: string;
  since: string;
  /** Not in the form: set by a delivery id's link, every copy of that delivery. */
  delivery: string;
}

/** What one request to the page asks for. */
export interface PageRequest {
  filters: PageFilters;
  /** The `next` cursor of the page before. */
  cursor: string;
  /** The counts of the `recover()` that redirected here, when it did. */
  recovered?: { recovered: number; failed: number; unverified: number };
}

const FILTER_NAMES = ['status', 'event', 'article', 'tenant', 'since', 'delivery'] as const;
const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longest value a filter takes: ids and names are short; a longer one is a mistake or junk. */
const MAX_FILTER_CHARS = 1000;

/** A filter the page cannot apply, with what to write instead. */
export class FilterError extends Error {}

/** Reads the page's parameters from the request's query string. */
export function readPageRequest(params: URLSearchParams): PageRequest {
  const filters = {} as PageFilters;
  for (const name of FILTER_NAMES) {
    const value = (params.get(name) ?? '').trim();
    if (value.length > MAX_FILTER_CHARS) throw new FilterError(`${name}: at most ${MAX_FILTER_CHARS} characters.`);
    filters[name] = value;
  }
  const request: PageRequest = { filters, cursor: params.get('cursor') ?? '' };
  if (params.has('recovered')) {
    const count = (name: string): number => {
      const value = Number(params.get(name));
      return Number.isSafeInteger(value) && value >= 0 ? value : 0;
    };
    request.recovered = { recovered: count('recovered'), failed: count('failed'), unverified: count('unverified') };
  }
  return request;
}

/** A status filter as `ledger.list` takes it: `401`, or a class `2xx`, `4xx`, `5xx`. */
function statusOf(text: string): LedgerQuery['status'] {
  if (text === '') return undefined;
  if (text === '2xx' || text === '4xx' || text === '5xx') return text;
  if (/^[1-5]\d\d$/.test(text)) return Number(text);
  throw new FilterError('status: a status such as 401, or 2xx, 4xx or 5xx.');
}

/** `since` as a time: a duration back from now (`30m`, `24h`, `7d`) or a date (`2026-11-28T10:00Z`). */
export function sinceOf(text: string, now: number): number | undefined {
  if (text === '') return undefined;
  const ago = /^(\d{1,6})\s*([mhd])$/i.exec(text);
  if (ago) return now - Number(ago[1]) * (UNITS[ago[2]!.toLowerCase()] ?? 0);
  const time = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isFinite(time)) return time;
  throw new FilterError('since: a duration back from now (30m, 24h, 7d) or a date such as 2026-11-28T10:00Z.');
}

/** The `ledger.list` query for the page's filters and cursor. */
export function listQuery(request: PageRequest, options: { now: number; limit: number }): LedgerQuery {
  const { filters, cursor } = request;
  const query: LedgerQuery = { limit: options.limit };
  const status = statusOf(filters.status);
  const since = sinceOf(filters.since, options.now);
  if (status !== undefined) query.status = status;
  if (since !== undefined) query.since = since;
  if (filters.event) query.event = filters.event;
  if (filters.article) query.article = filters.article;
  if (filters.tenant) query.tenant = filters.tenant;
  if (filters.delivery) query.deliveryId = filters.delivery;
  if (cursor) query.cursor = cursor;
  return query;
}

/**
 * A link to this page with these parameters: only a query string, so it resolves against the
 * page's own path wherever the page is mounted, and can never be a `javascript:` URL.
 */
export function pageHref(params: Partial<PageFilters> & { cursor?: string }): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '?';
}
