import { describe, expect, it } from 'vitest';
import { goesPublicAt, isPublic } from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';

const now = Date.parse('2026-06-01T12:00:00Z');
const article = (fields: Partial<Parameters<typeof articleFixture>[0]>) =>
  articleFixture({ status: 'published', published_at: null, scheduled_at: null, ...fields });

describe('isPublic', () => {
  it('shows a published article whose dates are past or absent', () => {
    expect(isPublic(article({ published_at: '2026-05-01T00:00:00Z' }), { now })).toBe(true);
    expect(isPublic(article({}), { now })).toBe(true);
    expect(isPublic(article({ scheduled_at: '2026-06-01T11:59:59Z' }), { now })).toBe(true);
  });

  it('counts an article as public from the exact instant of its date', () => {
    expect(isPublic(article({ published_at: '2026-06-01T12:00:00Z' }), { now })).toBe(true);
    expect(isPublic(article({ published_at: '2026-06-01T12:00:00.001Z' }), { now })).toBe(false);
  });

  it('keeps every other status private, whatever the dates', () => {
    for (const status of ['draft', 'review', 'approved', 'archived', 'legal-hold', 'Published'])
      expect(isPublic(article({ status, published_at: '2026-01-01T00:00:00Z' }), { now })).toBe(false);
  });

  it('hides a published article until the later of its two dates', () => {
    expect(isPublic(article({ published_at: '2026-06-02T00:00:00Z' }), { now })).toBe(false);
    expect(isPublic(article({ scheduled_at: '2026-06-02T00:00:00Z' }), { now })).toBe(false);
    const rescheduled = article({ published_at: '2026-05-01T00:00:00Z', scheduled_at: '2026-06-02T00:00:00Z' });
    expect(isPublic(rescheduled, { now })).toBe(false);
    expect(isPublic(rescheduled, { now: new Date('2026-06-02T00:00:00Z') })).toBe(true);
  });

  it('fails closed on a date that does not parse, and ignores an empty one', () => {
    expect(isPublic(article({ published_at: 'yesterday' }), { now })).toBe(false);
    expect(isPublic(article({ scheduled_at: '2026-02-30T25:00:00Z' }), { now })).toBe(false);
    expect(isPublic(article({ published_at: '' }), { now })).toBe(true);
  });

  it('takes now as a Date, as milliseconds, or from the clock', () => {
    const soon = article({ published_at: new Date(Date.now() + 60_000).toISOString() });
    expect(isPublic(soon)).toBe(false);
    expect(isPublic(soon, { now: new Date(Date.now() + 120_000) })).toBe(true);
    expect(isPublic(soon, { now: Date.now() + 120_000 })).toBe(true);
  });

  it('needs only status and the two dates (a stored row)', () => {
    expect(isPublic({ status: 'published', published_at: '2026-01-01T00:00:00Z', scheduled_at: null }, { now })).toBe(
      true,
    );
  });
});

describe('goesPublicAt', () => {
  it('gives the instant a scheduled article goes public', () => {
    const scheduled = article({ scheduled_at: '2026-06-02T08:00:00Z', published_at: '2026-06-01T09:00:00Z' });
    expect(goesPublicAt(scheduled, { now })?.toISOString()).toBe('2026-06-02T08:00:00.000Z');
  });

  it('is null for an article public already, or never public as it stands', () => {
    expect(goesPublicAt(article({ published_at: '2026-05-01T00:00:00Z' }), { now })).toBeNull();
    expect(goesPublicAt(article({ status: 'draft', scheduled_at: '2026-06-02T00:00:00Z' }), { now })).toBeNull();
    expect(goesPublicAt(article({ scheduled_at: 'soon' }), { now })).toBeNull();
  });
});
