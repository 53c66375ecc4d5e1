import { describe, expect, it } from 'vitest';
import type { SyncArticle } from 'webhook-cms-receiver';
import {
  type ArticleDelivery,
  emptySlugHistory,
  lookupSlug,
  recordSlug,
  type SlugHistory,
  slugRedirects,
} from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';

// The slug history's edges that slug-history.test.ts does not reach: who keeps an old slug when
// the article that held it comes back elsewhere, slugs first seen in a trash, the holders table's
// shape, and histories stored before holders were kept (three articles on one slug).

const live = { status: 'published', published_at: '2026-05-01T00:00:00Z', scheduled_at: null } as const;
const sync = (id: string, slug: string, fields: Partial<SyncArticle> = {}): ArticleDelivery => ({
  type: 'article.sync',
  article: articleFixture({ id, slug, ...live, ...fields }),
});
const trash = (id: string, slug: string): ArticleDelivery => ({ type: 'article.trash', article: { id, slug } });
const play = (...deliveries: ArticleDelivery[]) =>
  deliveries.reduce((history, delivery) => recordSlug(history, delivery), emptySlugHistory());

describe('who keeps an old slug', () => {
  it('leaves an old slug with its last owner when an article that once had it comes back elsewhere', () => {
    const history = play(
      sync('a', 'shared'),
      trash('a', 'shared'), // 'shared' answers 410 for a
      sync('b', 'shared'), // b takes it
      sync('b', 'moved'), // and moves on: 'shared' redirects to b's page
      sync('a', 'restored'), // a is restored under another slug
    );
    expect(lookupSlug(history, 'shared')).toEqual({ kind: 'redirect', id: 'b', to: 'moved' });
    expect(lookupSlug(history, 'restored')).toEqual({ kind: 'current', id: 'a' });
  });

  it('drops the redirect of an article whose current slug another article took since', () => {
    const history = play(sync('a', 'old'), sync('a', 'new'), sync('b', 'new'));
    // 'old' must not send readers to b's page.
    expect(lookupSlug(history, 'old')).toBeUndefined();
    expect(lookupSlug(history, 'new')).toEqual({ kind: 'current', id: 'b' });
    expect(slugRedirects(history)).toEqual([]);
  });
});

describe('a slug first seen in a trash or an archive', () => {
  it('answers gone for an article trashed or archived before any sync was recorded', () => {
    const history = play(trash('a', 'never-synced'), sync('b', 'archived-first', { status: 'archived' }));
    expect(lookupSlug(history, 'never-synced')).toEqual({ kind: 'gone', id: 'a' });
    expect(lookupSlug(history, 'archived-first')).toEqual({ kind: 'gone', id: 'b' });
  });

  it('gives a trashed article its own slug even when that slug was another article’s old one', () => {
    // b left 'old' for 'current'; a trash names 'old' for an article the history never saw.
    const history = play(sync('b', 'old'), sync('b', 'current'), trash('a', 'old'));
    expect(lookupSlug(history, 'old')).toEqual({ kind: 'gone', id: 'a' });
    expect(lookupSlug(history, 'current')).toEqual({ kind: 'current', id: 'b' });
  });
});

describe('the history as stored data', () => {
  it('keeps holders for live slugs only, so the history does not grow with every rename', () => {
    const history = play(sync('a', 'one'), sync('a', 'two'), sync('b', 'x'), trash('b', 'x'));
    expect(history.holders).toEqual({ two: ['a'] });
  });

  it('writes plain, editable properties, as JSON.parse would', () => {
    const history = play(sync('a', 'one'), sync('a', 'two'));
    for (const record of [history.articles, history.slugs, history.holders ?? {}])
      for (const key of Object.keys(record))
        expect(Object.getOwnPropertyDescriptor(record, key)).toMatchObject({
          writable: true,
          enumerable: true,
          configurable: true,
        });
    // A site that edits its history by hand (here in strict mode, where a read-only property throws).
    history.slugs.one = 'a';
    expect(JSON.parse(JSON.stringify(history))).toEqual(history);
    expect(Object.keys(history.slugs)).toEqual(['one', 'two']);
  });

  it('answers nothing, rather than throwing, for a slug whose article entry was removed', () => {
    // A site that purges an article from its stored tables but not from `slugs`.
    const history: SlugHistory = { articles: {}, slugs: { purged: 'a' }, holders: {} };
    expect(lookupSlug(history, 'purged')).toBeUndefined();
    expect(slugRedirects(history)).toEqual([]);
  });
});

describe('a history stored before holders were kept', () => {
  // Three live articles synced with one slug, b its owner; `Object.entries` lists a, b, c.
  const stored = (): SlugHistory => ({
    articles: {
      a: { slug: 'shared', gone: false },
      b: { slug: 'shared', gone: false },
      c: { slug: 'shared', gone: false },
    },
    slugs: { shared: 'b' },
  });

  it('keeps the owner when another holder is trashed', () => {
    for (const other of ['a', 'c']) {
      const history = recordSlug(stored(), trash(other, 'shared'));
      expect(lookupSlug(history, 'shared'), `trash ${other}`).toEqual({ kind: 'current', id: 'b' });
    }
  });

  it('hands the slug to a live holder, never to a gone article, when the owner moves on', () => {
    const history: SlugHistory = {
      articles: { a: { slug: 'shared', gone: true }, b: { slug: 'shared', gone: false } },
      slugs: { shared: 'b' },
    };
    recordSlug(history, sync('b', 'moved'));
    expect(history.holders).toEqual({ moved: ['b'] });
    expect(lookupSlug(history, 'shared')).toEqual({ kind: 'redirect', id: 'b', to: 'moved' });
  });
});
