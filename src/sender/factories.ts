import type {
  ArticleSyncEnvelope,
  ArticleTrashEnvelope,
  Envelope,
  Profile,
  SyncArticle,
  TestEnvelope,
  TrashArticle,
} from '../events/types.js';

/** Overrides for a factory: top-level fields replace, `article` and `profile` fields merge. */
export type PayloadOverrides<E extends Envelope> = Partial<Omit<E, 'article' | 'profile'>> & {
  article?: Partial<NonNullable<E['article']>>;
  profile?: Partial<NonNullable<E['profile']>>;
};

const nowSeconds = () => Math.floor(Date.now() / 1000);
// A fresh id per call: with a fixed one, two tests sharing a receiver (or a Redis/Postgres
// store, or `ordering: true`) would see each other's articles as the same article.
const freshId = () => globalThis.crypto.randomUUID();

/**
 * A profile like the service sends.
 *
 * @example
 * ```ts
 * const payload = articleSyncPayload({ profile: profileFixture({ domain: 'news.example.org' }) });
 * ```
 */
export function profileFixture(overrides: Partial<Profile> = {}): Profile {
  return { id: 'prof_42', domain: 'blog.example.com', ...overrides };
}

/**
 * A published article with Markdown, HTML, tags and some non-ASCII text, as `article.sync` carries it.
 * Every call has a fresh random `id` unless `overrides.id` is given; the other defaults are fixed.
 *
 * @example
 * ```ts
 * const draft = articleFixture({ status: 'draft', published_at: null });
 * ```
 */
export function articleFixture(overrides: Partial<SyncArticle> = {}): SyncArticle {
  return {
    id: freshId(),
    title: 'Ten SEO tips for 2026 — référencement',
    slug: 'ten-seo-tips',
    status: 'published',
    content_markdown: '# Ten SEO tips\n\n1. Write for people first.\n2. Use descriptive titles.\n',
    content_html: '<h1>Ten SEO tips</h1><ol><li>Write for people first.</li><li>Use descriptive titles.</li></ol>',
    meta_description: 'Ten practical SEO tips for small sites.',
    featured_image_url: 'https://cdn.example.com/images/seo-tips.png',
    tags: ['seo', 'content'],
    scheduled_at: null,
    published_at: '2026-11-20T10:00:00Z',
    ...overrides,
  };
}

/**
 * An `article.sync` envelope with realistic defaults and a fresh article id per call (unless
 * `article.id` is given). The delivery id is not part of the envelope: `signDelivery` and
 * `deliver` make a fresh one per call unless given, so two tests never collide.
 *
 * @example
 * ```ts
 * const payload = articleSyncPayload({ article: { slug: 'hello', status: 'draft' } });
 * const { headers, body } = signDelivery({ token, payload }); // fresh X-Service-Delivery-Id
 * ```
 */
export function articleSyncPayload(overrides: PayloadOverrides<ArticleSyncEnvelope> = {}): ArticleSyncEnvelope {
  const { article, profile, ...rest } = overrides;
  return {
    event: 'article.sync',
    timestamp: nowSeconds(),
    article: articleFixture(article),
    profile: profileFixture(profile),
    ...rest,
  };
}

/**
 * An `article.trash` envelope: only the article's id and slug, as the service sends. The id is
 * fresh per call unless given: to trash the article a sync delivered, pass its id.
 *
 * @example
 * ```ts
 * const sync = articleSyncPayload({ article: { slug: 'hello' } });
 * const trash = articleTrashPayload({ article: { id: sync.article.id, slug: 'hello' } });
 * ```
 */
export function articleTrashPayload(overrides: PayloadOverrides<ArticleTrashEnvelope> = {}): ArticleTrashEnvelope {
  const { article, profile, ...rest } = overrides;
  const { id, slug } = articleFixture(article);
  const trashed: TrashArticle = { id, slug, ...article };
  return {
    event: 'article.trash',
    timestamp: nowSeconds(),
    article: trashed,
    profile: profileFixture(profile),
    ...rest,
  };
}

/**
 * The envelope of the dashboard's Test Connection.
 *
 * @example
 * ```ts
 * const payload = testPayload();
 * ```
 */
export function testPayload(overrides: Partial<TestEnvelope> = {}): TestEnvelope {
  return { event: 'test', timestamp: nowSeconds(), article: null, profile: null, ...overrides };
}
