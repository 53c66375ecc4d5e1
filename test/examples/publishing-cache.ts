import { expect } from 'vitest';

/** What a shared cache (a CDN) may keep a publishing starter's answers: two minutes at most. */
export const PAGE_LIFETIME_LIMIT_S = 120;

/** The directives of a `Cache-Control` header, lower-cased, `true` for one without a value. */
function directives(header: string | null): Map<string, string | true> {
  const found = new Map<string, string | true>();
  for (const part of (header ?? '').split(',')) {
    const [name, value] = part.trim().toLowerCase().split('=');
    if (name) found.set(name, value === undefined ? true : value.replace(/^"|"$/g, ''));
  }
  return found;
}

/**
 * How long, in seconds, a cache may serve an answer without asking the site again, stale
 * serving included: for a shared cache (`s-maxage`, else `max-age`) or a browser (`max-age`).
 * `Infinity` without a header: a 301 is then kept by browsers for good, and CDNs may apply
 * their own defaults.
 */
export function cacheLifetime(header: string | null, cache: 'shared' | 'browser'): number {
  if (header === null) return Number.POSITIVE_INFINITY;
  const d = directives(header);
  if (d.has('no-store') || d.has('no-cache')) return 0;
  if (cache === 'shared' && d.has('private')) return 0;
  const fresh = Number((cache === 'shared' ? d.get('s-maxage') : undefined) ?? d.get('max-age') ?? Number.NaN);
  if (Number.isNaN(fresh)) return Number.POSITIVE_INFINITY;
  const stale = Number(
    d.get('stale-while-revalidate') === true ? Number.POSITIVE_INFINITY : (d.get('stale-while-revalidate') ?? 0),
  );
  return fresh + stale;
}

/**
 * Checks the `Cache-Control` of one answer: a public page (200) is kept by a CDN no longer than
 * {@link PAGE_LIFETIME_LIMIT_S}; a 301, 404 or 410 no longer than `page` (the header of a 200
 * of the same site), by a CDN or by a browser, since each can be taken back (a slug reused,
 * an article published or restored).
 *
 * @example
 * ```ts
 * expectCacheable({ status: 410, cacheControl: page.cacheControl }, published.cacheControl);
 * ```
 */
export function expectCacheable(answer: { status: number; cacheControl: string | null }, page: string | null): void {
  const what = `${answer.status} with Cache-Control: ${answer.cacheControl}`;
  const shared = cacheLifetime(answer.cacheControl, 'shared');
  expect(shared, what).toBeLessThanOrEqual(PAGE_LIFETIME_LIMIT_S);
  if (answer.status === 200) return;
  expect(shared, what).toBeLessThanOrEqual(cacheLifetime(page, 'shared'));
  expect(cacheLifetime(answer.cacheControl, 'browser'), what).toBeLessThanOrEqual(
    Math.max(cacheLifetime(page, 'browser'), 0),
  );
}
