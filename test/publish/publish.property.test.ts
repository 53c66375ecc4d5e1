import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SyncArticle } from 'webhook-cms-receiver';
import {
  type ArticleDelivery,
  answerForSlug,
  classifyChange,
  contentHash,
  emptySlugHistory,
  goesPublicAt,
  type HtmlSanitizer,
  isPublic,
  type Lastmod,
  loadHtmlSanitizer,
  lookupSlug,
  nextLastmod,
  recordSlug,
  type SlugHistory,
  sameContent,
  slugRedirects,
} from 'webhook-cms-receiver/publish';
import { dateField, delivery, NOW, budget, status, syncArticle } from './arbitraries.js';
import { unsafeParts } from './unsafe-html.js';

const HOUR = 3_600_000;
const now = fc.integer({ min: -8, max: 8 }).map((halfHours) => NOW + (halfHours * HOUR) / 2);
const SLUGS = ['alpha', 'beta', 'gamma', 'delta', '__proto__', 'constructor', 'never-seen', 'toString'];
const gone = (d: ArticleDelivery) => d.type === 'article.trash' || d.article.status === 'archived';

describe('isPublic over status × dates × now', () => {
  it('is public exactly when published and no date is ahead or unparseable; goesPublicAt agrees', () => {
    fc.assert(
      fc.property(syncArticle(), now, (article, at) => {
        const dates = [article.published_at, article.scheduled_at].filter((d) => d !== null && d !== '');
        const times = dates.map((d) => Date.parse(d as string));
        const valid = times.every((t) => !Number.isNaN(t));
        const expected = article.status === 'published' && valid && times.every((t) => t <= at);
        expect(isPublic(article, { now: at })).toBe(expected);
        const due = goesPublicAt(article, { now: at });
        if (due) {
          expect(expected).toBe(false);
          expect(isPublic(article, { now: due })).toBe(true);
          expect(isPublic(article, { now: due.getTime() - 1 })).toBe(false);
        } else expect(expected).toBe(article.status === 'published' && valid);
      }),
      budget(3000),
    );
  });
});

describe('classifyChange over pairs of versions', () => {
  it('agrees with isPublic and names every visibility change', () => {
    fc.assert(
      fc.property(fc.option(delivery, { nil: null }), delivery, now, (stored, next, at) => {
        const before =
          stored && ({ ...stored, article: { ...stored.article, id: next.article.id } } as ArticleDelivery);
        const change = classifyChange(before, next, { now: at });
        const visible = (d: ArticleDelivery | null) => d?.type === 'article.sync' && isPublic(d.article, { now: at });
        expect(change.isPublic).toBe(visible(next));
        expect(change.wasPublic).toBe(visible(before));
        expect(change.previousSlug).toBe(
          before && before.article.slug !== next.article.slug ? before.article.slug : null,
        );
        expect(change.kind === 'trashed').toBe(next.type === 'article.trash' && before?.type !== 'article.trash');
        expect(change.kind === 'restored').toBe(!gone(next) && before !== null && gone(before));
        if (change.kind === 'archived') expect(next.type === 'article.sync' && next.article.status).toBe('archived');
        if (change.kind === 'published') expect([change.wasPublic, change.isPublic]).toEqual([false, true]);
        if (change.kind === 'unpublished') expect([change.wasPublic, change.isPublic]).toEqual([true, false]);
        if (change.isPublic !== change.wasPublic)
          expect(['published', 'unpublished', 'restored', 'archived', 'trashed']).toContain(change.kind);
        if (change.kind === 'unchanged') {
          expect(change.isPublic).toBe(change.wasPublic);
          expect(change.contentChanged).toBe(false);
          if (next.type === 'article.sync') expect(change.previousSlug).toBeNull();
        }
        if (next.type === 'article.sync') expect(classifyChange(next, next, { now: at }).kind).toBe('unchanged');
      }),
      budget(3000),
    );
  });
});

/** Plays deliveries as a starter would: the history, and the last synced article per id. */
function play(deliveries: ArticleDelivery[]) {
  let history = emptySlugHistory();
  const store = new Map<string, SyncArticle>();
  for (const d of deliveries) {
    history = recordSlug(history, d);
    if (d.type === 'article.sync') store.set(d.article.id, d.article);
    else store.delete(d.article.id);
  }
  return { history, store };
}

const answer = (history: SlugHistory, store: Map<string, SyncArticle>, s: string, at: number) =>
  answerForSlug(history, s, { now: at, load: (id) => store.get(id) });

describe('slug history over delivery sequences', () => {
  it('keeps every redirect one hop onto a live slug of the same article', () => {
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 30 }), (deliveries) => {
        const { history } = play(deliveries);
        const redirects = slugRedirects(history);
        const froms = new Set(redirects.map((r) => r.from));
        for (const { from, to, id } of redirects) {
          expect(froms.has(to)).toBe(false);
          expect(lookupSlug(history, to)).toEqual({ kind: 'current', id });
          expect(lookupSlug(history, from)).toEqual({ kind: 'redirect', id, to });
        }
        const copy: SlugHistory = JSON.parse(JSON.stringify(history));
        for (const s of SLUGS) expect(lookupSlug(copy, s)).toEqual(lookupSlug(history, s));
        expect(Object.keys(Object.prototype)).toEqual([]);
      }),
      budget(3000),
    );
  });

  it('gives each slug one owner: the newest live article holding it now', () => {
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 30 }), (deliveries) => {
        const { history } = play(deliveries);
        const last = new Map<string, number>();
        for (const [i, d] of deliveries.entries()) last.set(d.article.id, i);
        for (const s of SLUGS) {
          // Live holders of s: articles whose last delivery is a sync with slug s; the newest wins.
          const holders = [...last]
            .filter(([, i]) => deliveries[i]!.article.slug === s && !gone(deliveries[i]!))
            .map(([id, since]) => ({ id, since }));
          if (holders.length === 0) continue;
          const newest = holders.reduce((a, b) => (b.since > a.since ? b : a));
          expect(lookupSlug(history, s)).toEqual({ kind: 'current', id: newest.id });
        }
      }),
      budget(3000),
    );
  });

  it('answers 200 only with a public article at its own slug, and 301 only to a 200', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(delivery, { maxLength: 30 }), now, async (deliveries, at) => {
        const { history, store } = play(deliveries);
        for (const s of SLUGS) {
          const got = await answer(history, store, s, at);
          if (got.status === 200) {
            expect(got.article.slug).toBe(s);
            expect(isPublic(got.article, { now: at })).toBe(true);
          }
          if (got.status === 301) {
            expect(got.location).not.toBe(s);
            expect(await answer(history, store, decodeURIComponent(got.location), at)).toMatchObject({ status: 200 });
          }
          if (!deliveries.some((d) => d.article.slug === s)) expect(got).toEqual({ status: 404 });
        }
      }),
      budget(2000),
    );
  });

  it('answers each article’s slugs by its last delivery: 200 public, 404 private, 301 old, 410 gone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(delivery, { minLength: 1, maxLength: 30 }), now, async (deliveries, at) => {
        const { history, store } = play(deliveries);
        for (const id of new Set(deliveries.map((d) => d.article.id))) {
          const lastIndex = deliveries.map((d) => d.article.id).lastIndexOf(id);
          const last = deliveries[lastIndex] as ArticleDelivery;
          const current = last.article.slug;
          const usedByOthers = (s: string) => deliveries.some((d) => d.article.id !== id && d.article.slug === s);
          const takenLater = deliveries
            .slice(lastIndex + 1)
            .some((d) => d.article.id !== id && d.type === 'article.sync' && d.article.slug === current);
          const ownSlugs = new Set(deliveries.filter((d) => d.article.id === id).map((d) => d.article.slug));
          const publicNow = last.type === 'article.sync' && isPublic(last.article, { now: at });
          if (publicNow && !takenLater)
            expect(await answer(history, store, current, at)).toEqual({ status: 200, article: last.article });
          if (usedByOthers(current)) continue;
          for (const s of ownSlugs) {
            if (usedByOthers(s)) continue;
            const expected = gone(last)
              ? { status: 410 }
              : !publicNow
                ? { status: 404 }
                : s === current
                  ? { status: 200, article: last.article }
                  : { status: 301, location: encodeURIComponent(current) };
            expect(await answer(history, store, s, at)).toEqual(expected);
          }
        }
      }),
      budget(3000),
    );
  });
});

describe('lastmod over edit sequences', () => {
  const edit = fc.oneof(
    syncArticle().map((a) => ({ content: a })),
    fc.record({ status, published_at: dateField, scheduled_at: dateField }).map((visibility) => ({ visibility })),
  );

  it('moves exactly when the content changes, and the hash is equal exactly for equal content', async () => {
    await fc.assert(
      fc.asyncProperty(syncArticle(), fc.array(edit, { maxLength: 12 }), async (first, edits) => {
        let version = first;
        let stamp: Lastmod = await nextLastmod(null, version, { now: NOW });
        for (const [i, step] of edits.entries()) {
          const next: SyncArticle =
            'content' in step ? { ...step.content, id: version.id } : { ...version, ...step.visibility };
          const after = await nextLastmod(stamp, next, { now: NOW + (i + 1) * 1000 });
          const same = sameContent(version, next);
          expect(after.lastmod === stamp.lastmod).toBe(same);
          expect(after.hash === stamp.hash).toBe(same);
          expect(after.hash).toBe(await contentHash(next));
          [version, stamp] = [next, after];
        }
      }),
      budget(1500),
    );
  });
});

describe('sanitizeHtml over generated markup', () => {
  let sanitize: HtmlSanitizer;
  beforeAll(async () => {
    sanitize = await loadHtmlSanitizer();
  });
  const TOKENS = [
    '<script>',
    '</script>',
    '<img src=x ',
    'onerror=alert(1)',
    ' onload=',
    '<a href="',
    'javascript:alert(1)',
    'java',
    'script:',
    '&#106;',
    '&#x09;',
    '&colon;',
    '">',
    '>',
    '<',
    '"',
    "'",
    ' ',
    '\t',
    '\n',
    '/',
    '=',
    '<svg',
    '<math>',
    '<style>',
    '</style>',
    '<iframe src=',
    '<!--',
    '-->',
    '<![CDATA[',
    ']]>',
    '<noscript>',
    '</noscript>',
    '<template>',
    '<p>',
    '</p>',
    'text',
    'data:text/html,',
    ' style="x:expression(alert(1))"',
    '<form action=',
    '<base href=',
  ];
  const markup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((parts) => parts.join(''));

  it('leaves no script, handler or code URL in any mix of hostile tokens, and is idempotent', () => {
    fc.assert(
      fc.property(markup, (html) => {
        const clean = sanitize(html);
        expect(unsafeParts(clean)).toEqual([]);
        expect(sanitize(clean)).toBe(clean);
      }),
      budget(3000),
    );
  });
});
