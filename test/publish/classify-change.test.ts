import { describe, expect, it } from 'vitest';
import { type ArticleDelivery, classifyChange } from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';
import type { SyncArticle } from 'webhook-cms-receiver';

const now = Date.parse('2026-06-01T12:00:00Z');
const base = articleFixture({ id: 'a1', slug: 'tips', status: 'published', published_at: '2026-05-01T00:00:00Z' });
const sync = (fields: Partial<SyncArticle> = {}): ArticleDelivery => ({
  type: 'article.sync',
  article: { ...base, ...fields },
});
const trash = (slug = 'tips'): ArticleDelivery => ({ type: 'article.trash', article: { id: 'a1', slug } });
const kind = (stored: Parameters<typeof classifyChange>[0], next: ArticleDelivery) =>
  classifyChange(stored, next, { now }).kind;

describe('classifyChange', () => {
  it('publishes a public article seen for the first time, and only creates a draft', () => {
    expect(classifyChange(null, sync(), { now })).toEqual({
      kind: 'published',
      id: 'a1',
      slug: 'tips',
      previousSlug: null,
      wasPublic: false,
      isPublic: true,
      contentChanged: true,
    });
    expect(kind(undefined, sync({ status: 'draft' }))).toBe('created');
  });

  it('publishes on the status change, and unpublishes on the way back', () => {
    expect(kind(sync({ status: 'approved' }), sync())).toBe('published');
    expect(kind(sync(), sync({ status: 'review' }))).toBe('unpublished');
    expect(kind(sync(), sync({ scheduled_at: '2026-07-01T00:00:00Z' }))).toBe('unpublished');
  });

  it('counts a schedule that came due since the stored version as public already', () => {
    const due = sync({ published_at: '2026-06-01T06:00:00Z' });
    expect(classifyChange(due, sync({ published_at: '2026-06-01T06:00:00Z', title: 'New' }), { now })).toMatchObject({
      kind: 'updated',
      wasPublic: true,
    });
  });

  it('renames when the slug changes, public or not, and reports the old slug', () => {
    expect(classifyChange(sync(), sync({ slug: 'seo-tips' }), { now })).toMatchObject({
      kind: 'renamed',
      previousSlug: 'tips',
      slug: 'seo-tips',
    });
    expect(kind(sync({ status: 'draft' }), sync({ status: 'draft', slug: 'seo-tips' }))).toBe('renamed');
    expect(classifyChange(sync({ status: 'draft' }), sync({ slug: 'seo-tips' }), { now })).toMatchObject({
      kind: 'published',
      previousSlug: 'tips',
    });
  });

  it('updates on a content change and nothing else, unchanged otherwise', () => {
    expect(kind(sync(), sync({ content_html: '<p>new</p>' }))).toBe('updated');
    expect(kind(sync(), sync({ meta_description: 'new' }))).toBe('updated');
    expect(kind(sync(), sync({ featured_image_url: null }))).toBe('updated');
    expect(kind(sync(), sync())).toBe('unchanged');
    expect(kind(sync({ status: 'draft' }), sync({ status: 'review' }))).toBe('unchanged');
    expect(kind(sync(), sync({ published_at: '2026-04-01T00:00:00Z' }))).toBe('unchanged');
  });

  it('trashes, archives and restores', () => {
    expect(classifyChange(sync(), trash(), { now })).toMatchObject({ kind: 'trashed', isPublic: false });
    expect(kind(null, trash())).toBe('trashed');
    expect(kind(trash(), trash())).toBe('unchanged');
    expect(kind(sync(), sync({ status: 'archived' }))).toBe('archived');
    expect(kind(trash(), sync({ status: 'archived' }))).toBe('archived');
    expect(kind(sync({ status: 'archived' }), sync({ status: 'archived' }))).toBe('unchanged');
    expect(kind(sync({ status: 'archived' }), sync({ status: 'archived', title: 'x' }))).toBe('updated');
    expect(classifyChange(trash(), sync(), { now })).toMatchObject({ kind: 'restored', isPublic: true });
    expect(classifyChange(sync({ status: 'archived' }), sync({ status: 'draft' }), { now })).toMatchObject({
      kind: 'restored',
      isPublic: false,
    });
  });

  it('reads a bare stored article row as its last sync', () => {
    expect(kind({ ...base, status: 'draft' }, sync())).toBe('published');
    expect(kind({ ...base }, sync({ slug: 'other' }))).toBe('renamed');
  });
});
