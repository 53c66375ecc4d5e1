// ISO 8601 date-times as the service sends them: a full date, `T`, hours and minutes, optional
// seconds and fraction, then `Z` or an offset. `Date.parse` accepts far more ("0", "99",
// "2026-02-30" rolled over to March, a host-local reading of a time without offset), which made
// an article's visibility depend on the host's time zone.
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && leap(year) ? 29 : DAYS[month - 1]!);

/**
 * The instant an article date names, in milliseconds since the epoch, or `undefined` when it is
 * not a date: only ISO 8601 date-times are read (`2026-06-01T09:00:00Z`,
 * `2026-06-01T18:00:00.000+09:00`), with real calendar days and times. A date-time without an
 * offset is read as UTC, never in the host's time zone, so every server agrees.
 *
 * @example
 * ```ts
 * import { parseArticleDate } from 'webhook-cms-receiver/publish';
 * parseArticleDate('2026-06-01T09:00:00+09:00'); // Date.parse('2026-06-01T00:00:00Z')
 * parseArticleDate('2026-02-30T00:00:00Z'); // undefined
 * ```
 */
export function parseArticleDate(value: unknown): number | undefined {
  const match = typeof value === 'string' ? ISO.exec(value) : null;
  if (!match) return undefined;
  const [year, month, day, hour, minute, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return undefined;
  if (hour! > 23 || minute! > 59 || second > 59) return undefined;
  const offset = offsetMinutes(match[8]);
  if (offset === undefined) return undefined;
  const fraction = Number(`0.${match[7] ?? '0'}`);
  const at = new Date(0);
  at.setUTCFullYear(year!, month! - 1, day!);
  at.setUTCHours(hour!, minute!, second, Math.floor(fraction * 1000));
  return at.getTime() - offset * 60_000;
}

function offsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * The date fields of an article that are set but are not dates ({@link parseArticleDate}): such
 * an article is never public. Log them, so a bad date is seen rather than silently hiding (or,
 * before strict parsing, showing) an article.
 *
 * @example
 * ```ts
 * import { invalidDates } from 'webhook-cms-receiver/publish';
 * for (const { field, value } of invalidDates(article)) console.warn(`${article.id}: ${field} ${JSON.stringify(value)} is not an ISO 8601 date`);
 * ```
 */
export function invalidDates(article: {
  published_at?: unknown;
  scheduled_at?: unknown;
}): { field: 'published_at' | 'scheduled_at'; value: unknown }[] {
  const found: { field: 'published_at' | 'scheduled_at'; value: unknown }[] = [];
  for (const field of ['published_at', 'scheduled_at'] as const) {
    const value = article[field];
    if (value !== null && value !== undefined && value !== '' && parseArticleDate(value) === undefined)
      found.push({ field, value });
  }
  return found;
}
