import { describe, expect, it } from 'vitest';
import type { SyncArticle } from 'webhook-cms-receiver';
import {
  type ArticleDelivery,
  answerForSlug,
  emptySlugHistory,
  lookupSlug,
  recordSlug,
  type SlugHistory,
  slugRedirects,
} from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';

const now = Date.parse('2026-06-01T12:00:00Z');
const live = { status: 'published', published_at: '2026-05-01T00:00:00Z', scheduled_at: null } as const;
const sync = (id: string, slug: string, fields: Partial<SyncArticle> = {}): ArticleDelivery => ({
  type: 'article.sync',
  article: articleFixture({ id, slug, ...live, ...fields }),
});
const trash = (id: string, slug: string): ArticleDelivery => ({ type: 'article.trash', article: { id, slug } });

/** Plays deliveries into a history and a store of the last synced article per id, as a starter would. */
function play(...deliveries: ArticleDelivery[]) {
  let history = emptySlugHistory();
  const store = new Map<string, SyncArticle>();
  for (const delivery of deliveries) {
    history = recordSlug(history, delivery);
    if (delivery.type === 'article.sync') store.set(delivery.article.id, delivery.article);
    else store.delete(delivery.article.id);
  }
  const answer = (slug: string) =>
    answerForSlug(history, slug, { now, load: (id) => store.get(id), location: (to) => `/articles/${to}` });
  return { history, answer };
}

describe('slug history', () => {
  it('answers 200 with the article at its current slug', async () => {
    const { answer } = play(sync('a', 'tips'));
    expect(await answer('tips')).toMatchObject({ status: 200, article: { id: 'a', slug: 'tips' } });
  });

  it('collapses a chain of renames to one hop when written', async () => {
    const { history, answer } = play(sync('a', 'a1'), sync('a', 'b1'), sync('a', 'c1'));
    expect(await answer('a1')).toEqual({ status: 301, location: '/articles/c1' });
    expect(await answer('b1')).toEqual({ status: 301, location: '/articles/c1' });
    expect(slugRedirects(history)).toEqual([
      { from: 'a1', to: 'c1', id: 'a' },
      { from: 'b1', to: 'c1', id: 'a' },
    ]);
  });

  it('turns an old slug back into the current one when an article takes its old name again', async () => {
    const { history, answer } = play(sync('a', 'one'), sync('a', 'two'), sync('a', 'one'));
    expect(await answer('one')).toMatchObject({ status: 200 });
    expect(await answer('two')).toEqual({ status: 301, location: '/articles/one' });
    expect(slugRedirects(history)).toEqual([{ from: 'two', to: 'one', id: 'a' }]);
  });

  it('drops a redirect when another article takes the slug', async () => {
    const { history, answer } = play(sync('a', 'old'), sync('a', 'new'), sync('b', 'old'));
    expect(await answer('old')).toMatchObject({ status: 200, article: { id: 'b' } });
    expect(await answer('new')).toMatchObject({ status: 200, article: { id: 'a' } });
    expect(slugRedirects(history)).toEqual([]);
  });

  it('answers 410 for every slug of a trashed or archived article', async () => {
    const trashed = play(sync('a', 'first'), sync('a', 'second'), trash('a', 'second'));
    expect(await trashed.answer('first')).toEqual({ status: 410 });
    expect(await trashed.answer('second')).toEqual({ status: 410 });
    const archived = play(sync('a', 'first'), sync('a', 'second', { status: 'archived' }));
    expect(await archived.answer('first')).toEqual({ status: 410 });
    expect(await archived.answer('second')).toEqual({ status: 410 });
    expect(slugRedirects(archived.history)).toEqual([]);
  });

  it('never turns another article’s live page into a 410', async () => {
    const { answer } = play(sync('b', 'shared'), trash('a', 'shared'), sync('c', 'x', { status: 'archived' }));
    expect(await answer('shared')).toMatchObject({ status: 200, article: { id: 'b' } });
  });

  it('answers 404 for a draft, a scheduled article and their old slugs, so no redirect reveals them', async () => {
    const draft = play(sync('a', 'v1', { status: 'draft' }), sync('a', 'v2', { status: 'draft' }));
    expect(await draft.answer('v1')).toEqual({ status: 404 });
    expect(await draft.answer('v2')).toEqual({ status: 404 });
    const later = play(sync('a', 'v1'), sync('a', 'v2', { scheduled_at: '2026-06-02T00:00:00Z' }));
    expect(await later.answer('v1')).toEqual({ status: 404 });
    expect(await later.answer('v2')).toEqual({ status: 404 });
  });

  it('brings a restored article back at its slug', async () => {
    const { answer } = play(sync('a', 'back'), trash('a', 'back'), sync('a', 'back'));
    expect(await answer('back')).toMatchObject({ status: 200 });
  });

  it('answers 404 for a slug never seen, prototype keys included', async () => {
    const { answer } = play(sync('a', 'tips'));
    for (const slug of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(await answer(slug)).toEqual({ status: 404 });
  });

  it('keeps prototype keys as plain slugs and ids, in memory and through JSON', async () => {
    const { history, answer } = play(sync('__proto__', 'constructor'), sync('__proto__', '__proto__'));
    expect(Object.getPrototypeOf(history.slugs)).toBe(Object.prototype);
    expect(await answer('__proto__')).toMatchObject({ status: 200, article: { id: '__proto__' } });
    expect(await answer('constructor')).toEqual({ status: 301, location: '/articles/__proto__' });
    const copy: SlugHistory = JSON.parse(JSON.stringify(history));
    expect(lookupSlug(copy, 'constructor')).toEqual({ kind: 'redirect', id: '__proto__', to: '__proto__' });
  });

  it('loads asynchronously, and URL-encodes the default relative location', async () => {
    const { history } = play(sync('a', 'old'), sync('a', 'new wave'));
    const article = articleFixture({ id: 'a', slug: 'new wave', ...live });
    const answer = await answerForSlug(history, 'old', { now, load: async () => article });
    expect(answer).toEqual({ status: 301, location: 'new%20wave' });
    expect(await answerForSlug(history, 'old', { now, load: () => null })).toEqual({ status: 404 });
  });

  it('answers 410 when the store has the article archived though the history was not told', async () => {
    const { history } = play(sync('a', 'tips'));
    const archived = articleFixture({ id: 'a', slug: 'tips', ...live, status: 'archived' });
    expect(await answerForSlug(history, 'tips', { now, load: () => archived })).toEqual({ status: 410 });
  });

  it('updates the history in place and returns it (O(1), no copy of the whole history)', () => {
    const history = play(sync('a', 'one')).history;
    expect(recordSlug(history, sync('a', 'two'))).toBe(history);
    expect(lookupSlug(history, 'one')).toEqual({ kind: 'redirect', id: 'a', to: 'two' });
  });

  it('reads a history stored before holders were kept', async () => {
    const stored: SlugHistory = {
      articles: { a: { slug: 'shared', gone: false }, b: { slug: 'shared', gone: false } },
      slugs: { shared: 'b' },
    };
    recordSlug(stored, trash('b', 'shared'));
    expect(lookupSlug(stored, 'shared')).toEqual({ kind: 'current', id: 'a' });
  });
});

describe('one owner per slug', () => {
  it('gives a slug back to the article still holding it when the newer holder is trashed', async () => {
    // The first article stays published and in the sitemap: its page must not answer 410.
    const { answer } = play(sync('first', 'shared'), sync('second', 'shared'), trash('second', 'shared'));
    expect(await answer('shared')).toMatchObject({ status: 200, article: { id: 'first' } });
  });

  it('gives it back when the newer holder is archived or renamed away', async () => {
    const archived = play(sync('a', 'shared'), sync('b', 'shared'), sync('b', 'shared', { status: 'archived' }));
    expect(await archived.answer('shared')).toMatchObject({ status: 200, article: { id: 'a' } });
    const renamed = play(sync('a', 'shared'), sync('b', 'shared'), sync('b', 'elsewhere'));
    expect(await renamed.answer('shared')).toMatchObject({ status: 200, article: { id: 'a' } });
    expect(await renamed.answer('elsewhere')).toMatchObject({ status: 200, article: { id: 'b' } });
  });

  it('two articles trade slugs, one is trashed in between: each slug answers for its holder now', async () => {
    const { answer } = play(
      sync('a', 'one'),
      sync('b', 'two'),
      sync('a', 'two'), // a takes two while b still holds it
      trash('b', 'two'), // b once held two: its trash must not take a's page down
      sync('b', 'one', { status: 'published' }), // b comes back and takes a's old slug
    );
    expect(await answer('two')).toMatchObject({ status: 200, article: { id: 'a' } });
    expect(await answer('one')).toMatchObject({ status: 200, article: { id: 'b' } });
    const after = play(sync('a', 'one'), sync('b', 'two'), sync('a', 'two'), sync('b', 'one'), trash('a', 'two'));
    expect(await after.answer('two')).toEqual({ status: 410 });
    expect(await after.answer('one')).toMatchObject({ status: 200, article: { id: 'b' } });
  });
});
