import type { ArticleStatus } from 'webhook-cms-receiver';
import { parseArticleDate } from './article-date.js';

/**
 * The fields that decide whether an article is public. A full `article.sync` article has them,
 * and so does a stored row that keeps only these three.
 *
 * @example
 * ```ts
 * const row: VisibilityFields = { status: 'published', published_at: '2026-01-01T09:00:00Z', scheduled_at: null };
 * ```
 */
export interface VisibilityFields {
  status: ArticleStatus;
  published_at: string | null;
  scheduled_at: string | null;
}

/**
 * The time to judge at, as a `Date` or milliseconds since the epoch. Defaults to `Date.now()`;
 * pass it in tests and when one request must judge several articles at the same instant.
 *
 * @example
 * ```ts
 * const at: AtOptions = { now: new Date('2026-01-01T10:00:00Z') };
 * ```
 */
export interface AtOptions {
  now?: Date | number;
}

/** Milliseconds for `options.now`, `Date.now()` when absent. */
export function nowMs(options: AtOptions | undefined): number {
  const now = options?.now;
  if (now === undefined) return Date.now();
  return typeof now === 'number' ? now : now.getTime();
}

/**
 * The instant from which a `published` article is public: the later of `published_at` and
 * `scheduled_at` (an absent or empty date does not hold it back, so `-Infinity` when neither is
 * set), or `undefined` when it never is as it stands: another status, or a date that is not a
 * date (fails closed, so a malformed schedule never leaks an article early).
 */
function publicFromMs(article: VisibilityFields): number | undefined {
  if (article.status !== 'published') return undefined;
  let from = Number.NEGATIVE_INFINITY;
  for (const date of [article.published_at, article.scheduled_at]) {
    if (date === null || date === undefined || date === '') continue;
    const ms = parseArticleDate(date);
    if (ms === undefined) return undefined;
    from = Math.max(from, ms);
  }
  return from;
}

/**
 * Whether the article may be shown now: status `published`, and neither `published_at` nor
 * `scheduled_at` in the future. Every other status (draft, review, approved, archived, one the
 * service adds later) is private. Dates are ISO 8601 date-times with `Z` or an offset, as the
 * service sends them; one without an offset is read as UTC, whatever the host's time zone.
 * Anything else ("0", "99", "2026-02-30", a date without a time) is not a date: the article is
 * not public, and {@link invalidDates} lists the field so it can be reported. Trashed articles
 * are not public either: pass only articles from `article.sync`.
 *
 * @example
 * ```ts
 * import { isPublic } from 'webhook-cms-receiver/publish';
 * if (!isPublic(article, { now: Date.now() })) return new Response('Not found', { status: 404 });
 * ```
 */
export function isPublic(article: VisibilityFields, options?: AtOptions): boolean {
  const from = publicFromMs(article);
  return from !== undefined && from <= nowMs(options);
}

/**
 * When a `published` article whose date is still ahead becomes public without another delivery:
 * a `Date` in the future, or `null` when it is public already or will not become public as it
 * stands. Use it to revalidate a cached page or the sitemap at that moment (the service sends no
 * delivery when a schedule comes due).
 *
 * @example
 * ```ts
 * import { goesPublicAt } from 'webhook-cms-receiver/publish';
 * const at = goesPublicAt(article);
 * if (at) setTimeout(() => revalidatePath(`/articles/${article.slug}`), at.getTime() - Date.now());
 * ```
 */
export function goesPublicAt(article: VisibilityFields, options?: AtOptions): Date | null {
  const from = publicFromMs(article);
  return from !== undefined && from > nowMs(options) ? new Date(from) : null;
}
