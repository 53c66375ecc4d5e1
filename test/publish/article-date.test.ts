import { describe, expect, it } from 'vitest';
import { invalidDates, parseArticleDate } from 'webhook-cms-receiver/publish';

const utc = (text: string) => Date.parse(text);

describe('parseArticleDate reads ISO 8601 date-times only, with real calendar days', () => {
  it('reads Z, z, no offset (as UTC), and offsets with and without a colon', () => {
    expect(parseArticleDate('2026-06-01T09:00:00Z')).toBe(utc('2026-06-01T09:00:00Z'));
    expect(parseArticleDate('2026-06-01T09:00:00z')).toBe(utc('2026-06-01T09:00:00Z'));
    expect(parseArticleDate('2026-06-01T09:00')).toBe(utc('2026-06-01T09:00:00Z'));
    expect(parseArticleDate('2026-06-01T18:00:00.000+09:00')).toBe(utc('2026-06-01T09:00:00Z'));
    expect(parseArticleDate('2026-06-01T18:00+0930')).toBe(utc('2026-06-01T08:30:00Z'));
    expect(parseArticleDate('2026-06-01T01:00:00-05')).toBe(utc('2026-06-01T06:00:00Z'));
    expect(parseArticleDate('2026-06-01T01:00:00-05:30')).toBe(utc('2026-06-01T06:30:00Z'));
  });

  it('keeps milliseconds of a fraction of any length, with a dot or a comma', () => {
    expect(parseArticleDate('2026-06-01T09:00:00.5Z')).toBe(utc('2026-06-01T09:00:00.500Z'));
    expect(parseArticleDate('2026-06-01T09:00:00,123456789Z')).toBe(utc('2026-06-01T09:00:00.123Z'));
    expect(parseArticleDate('2026-06-01T09:00:59.999Z')).toBe(utc('2026-06-01T09:00:59.999Z'));
  });

  it('reads the last day of each month, 29 February in leap years only', () => {
    const last = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    last.forEach((days, i) => {
      const month = String(i + 1).padStart(2, '0');
      expect(parseArticleDate(`2027-${month}-${days}T00:00:00Z`)).toBe(utc(`2027-${month}-${days}T00:00:00Z`));
      expect(parseArticleDate(`2027-${month}-${days + 1}T00:00:00Z`)).toBeUndefined();
    });
    expect(parseArticleDate('2024-02-29T00:00:00Z')).toBe(utc('2024-02-29T00:00:00Z'));
    // A leap year lengthens February only.
    expect(parseArticleDate('2024-01-31T00:00:00Z')).toBe(utc('2024-01-31T00:00:00Z'));
    expect(parseArticleDate('2024-04-30T00:00:00Z')).toBe(utc('2024-04-30T00:00:00Z'));
    expect(parseArticleDate('2000-02-29T00:00:00Z')).toBe(utc('2000-02-29T00:00:00Z'));
    expect(parseArticleDate('1900-02-29T00:00:00Z')).toBeUndefined();
    expect(parseArticleDate('2026-02-29T00:00:00Z')).toBeUndefined();
  });

  it('reads years before 100 as themselves, not as 19xx', () => {
    expect(parseArticleDate('0099-01-01T00:00:00Z')).toBe(utc('0099-01-01T00:00:00Z'));
    expect(utc('0099-01-01T00:00:00Z')).toBeLessThan(utc('0100-01-01T00:00:00Z'));
  });

  it('refuses the edges just outside a real date, time and offset', () => {
    for (const text of [
      '2026-00-10T00:00:00Z',
      '2026-13-10T00:00:00Z',
      '2026-06-00T00:00:00Z',
      '2026-06-31T00:00:00Z',
      '2026-06-01T24:00:00Z',
      '2026-06-01T23:60:00Z',
      '2026-06-01T23:59:60Z',
      '2026-06-01T09:00:00+24:00',
      '2026-06-01T09:00:00+23:60',
      '2026-06-01',
      '0',
      ' 2026-06-01T09:00:00Z',
      '2026-06-01T09:00:00Z ',
    ]) {
      expect(parseArticleDate(text), text).toBeUndefined();
    }
    expect(parseArticleDate('2026-06-01T23:59:59+23:59')).toBe(utc('2026-06-01T00:00:59Z'));
    expect(parseArticleDate('2026-12-31T23:59:59Z')).toBe(utc('2026-12-31T23:59:59Z'));
    expect(parseArticleDate('2026-01-01T00:00:00Z')).toBe(utc('2026-01-01T00:00:00Z'));
    const lookalike = { toString: () => '2026-06-01T09:00:00Z' };
    for (const value of [undefined, null, 1_780_000_000_000, new Date(), lookalike])
      expect(parseArticleDate(value)).toBeUndefined();
  });
});

describe('invalidDates', () => {
  it('lists the set date fields that are not dates, and nothing else', () => {
    expect(invalidDates({ published_at: 'yesterday', scheduled_at: '2026-02-30T00:00:00Z' })).toEqual([
      { field: 'published_at', value: 'yesterday' },
      { field: 'scheduled_at', value: '2026-02-30T00:00:00Z' },
    ]);
    expect(invalidDates({ published_at: '2026-06-01T09:00:00Z', scheduled_at: 5 })).toEqual([
      { field: 'scheduled_at', value: 5 },
    ]);
    expect(invalidDates({ published_at: null, scheduled_at: '' })).toEqual([]);
    expect(invalidDates({})).toEqual([]);
  });
});
