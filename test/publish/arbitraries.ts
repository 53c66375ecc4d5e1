import fc from 'fast-check';
import type { SyncArticle } from 'webhook-cms-receiver';
import type { ArticleDelivery } from 'webhook-cms-receiver/publish';

/** The instant every generated date is relative to. */
export const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;

/** PROPERTY_BUDGET scales the runs, as in test/property (the mutation run sets it low). */
export function runs(full: number): number {
  const scale = Number(process.env.PROPERTY_BUDGET ?? 1) || 1;
  return Math.max(1, Math.round(full * scale));
}

/**
 * The parameters of one property: its runs scaled by PROPERTY_BUDGET and, when FC_SEED is set
 * (the mutation run sets it), that seed, so a run decides each mutant as the last one did and
 * a CI failure reproduces locally.
 */
export function budget(full: number): { numRuns: number; seed?: number } {
  const seed = process.env.FC_SEED;
  return seed === undefined || seed === '' ? { numRuns: runs(full) } : { numRuns: runs(full), seed: Number(seed) };
}

export const STATUSES = ['draft', 'review', 'approved', 'published', 'archived', 'legal-hold'] as const;

/** A date field: absent, empty, unparseable, or a few hours either side of NOW (NOW itself included). */
export const dateField = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('', 'not a date', '2026-13-45T99:00:00Z') },
  { weight: 6, arbitrary: fc.integer({ min: -3, max: 3 }).map((hours) => new Date(NOW + hours * HOUR).toISOString()) },
);

export const status = fc.constantFrom(...STATUSES);

/** Few ids and few slugs, some of them prototype keys, so sequences collide and rename often. */
export const articleId = fc.constantFrom('id-a', 'id-b', 'id-c');
export const slug = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '__proto__', 'constructor');

const content = fc.record({
  title: fc.constantFrom('Ten tips', 'Eleven tips'),
  content_html: fc.constantFrom('<p>One</p>', '<p>Two</p>'),
  meta_description: fc.constantFrom('Short.', 'Longer.'),
  featured_image_url: fc.constantFrom(null, 'https://cdn.example.com/a.png'),
});

export const syncArticle = (id: fc.Arbitrary<string> = articleId): fc.Arbitrary<SyncArticle> =>
  fc
    .record({
      id,
      slug,
      status,
      published_at: dateField,
      scheduled_at: dateField,
      content,
    })
    .map(({ content: fields, ...rest }) => ({
      ...rest,
      ...fields,
      content_markdown: fields.content_html.replace(/<\/?p>/g, ''),
      tags: ['seo'],
    }));

export const delivery: fc.Arbitrary<ArticleDelivery> = fc.oneof(
  { weight: 5, arbitrary: syncArticle().map((article) => ({ type: 'article.sync' as const, article })) },
  {
    weight: 1,
    arbitrary: fc.record({ id: articleId, slug }).map((article) => ({ type: 'article.trash' as const, article })),
  },
);

/** Freezes a value and everything in it, so a function that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
