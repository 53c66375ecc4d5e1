import { describe, expect, it } from 'vitest';
import type { SyncArticle } from 'webhook-cms-receiver';
import {
  type ArticleDelivery,
  answerForSlug,
  classifyChange,
  contentHash,
  emptySlugHistory,
  goesPublicAt,
  isPublic,
  nextLastmod,
  recordSlug,
  type StoredVersion,
  sameContent,
  type VisibilityFields,
} from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';

// Stored rows as sites keep them: missing columns, extra columns, an article gone from the store.
// The rules must read them as the documentation says, not only the full deliveries.

const now = Date.parse('2026-06-01T12:00:00Z');
const article = articleFixture({
  id: 'a1',
  slug: 'tips',
  status: 'published',
  published_at: '2026-05-01T00:00:00Z',
  scheduled_at: null,
});
const sync = (fields: Partial<SyncArticle> = {}): ArticleDelivery => ({
  type: 'article.sync',
  article: { ...article, ...fields },
});
const trash: ArticleDelivery = { type: 'article.trash', article: { id: 'a1', slug: 'tips' } };

describe('classifyChange on stored rows', () => {
  it('reads a stored row with a column named `type` as the last synced article', () => {
    const row = { ...article, type: 'post' } as unknown as StoredVersion;
    expect(classifyChange(row, sync(), { now }).kind).toBe('unchanged');
    expect(classifyChange(row, sync({ title: 'New' }), { now }).kind).toBe('updated');
  });

  it('says a trash changed no content, whatever was stored before', () => {
    for (const stored of [sync(), article, null])
      expect(classifyChange(stored, trash, { now }).contentChanged, JSON.stringify(stored)).toBe(false);
  });

  it('archives an article first seen archived', () => {
    for (const stored of [null, undefined])
      expect(classifyChange(stored, sync({ status: 'archived' }), { now })).toMatchObject({
        kind: 'archived',
        isPublic: false,
      });
  });
});

describe('content and lastmod of stored rows', () => {
  it('counts a row stored without tags as an article without tags', async () => {
    const { tags: _, ...row } = article;
    const untagged = row as SyncArticle;
    expect(sameContent(untagged, { ...article, tags: [] })).toBe(true);
    expect(sameContent(untagged, article)).toBe(article.tags.length === 0);
    expect(await contentHash(untagged)).toBe(await contentHash({ ...article, tags: [] }));
  });

  it('starts from published_at whether no previous stamp is null or undefined', async () => {
    for (const previous of [null, undefined])
      expect((await nextLastmod(previous, article, { now })).lastmod).toBe('2026-05-01T00:00:00.000Z');
  });
});

describe('visibility of rows that leave out an empty date', () => {
  it('reads a missing scheduled_at or published_at as not set', () => {
    const { scheduled_at: _, ...noSchedule } = article;
    const { published_at: __, ...noPublished } = article;
    expect(isPublic(noSchedule as unknown as VisibilityFields, { now })).toBe(true);
    expect(isPublic(noPublished as unknown as VisibilityFields, { now })).toBe(true);
    const later = { status: 'published', published_at: '2026-07-01T00:00:00Z' } as VisibilityFields;
    expect(isPublic(later, { now })).toBe(false);
    expect(goesPublicAt(later, { now })).toEqual(new Date('2026-07-01T00:00:00Z'));
  });
});

describe('an article whose date is now', () => {
  it('is public already, so it has no moment ahead to go public at', () => {
    const due = { status: 'published', published_at: null, scheduled_at: '2026-06-01T12:00:00Z' };
    expect(isPublic(due, { now })).toBe(true);
    expect(goesPublicAt(due, { now })).toBeNull();
    expect(goesPublicAt(due, { now: now - 1 })).toEqual(new Date(now));
  });
});

describe('answerForSlug when the store no longer has the article', () => {
  it('answers 404 whether load gives undefined or null', async () => {
    const history = recordSlug(emptySlugHistory(), sync());
    for (const missing of [undefined, null])
      expect(await answerForSlug(history, 'tips', { now, load: () => missing })).toEqual({ status: 404 });
  });
});
