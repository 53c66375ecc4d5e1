import { lookupSlug, type SlugHistory } from './slug-history.js';
import { type AtOptions, isPublic, nowMs, type VisibilityFields } from './visibility.js';

/**
 * How to answer a request for an article's URL: the article (200), a permanent redirect to its
 * current slug (301), Gone for a trashed or archived article (410), or Not Found (404) for a
 * slug never public or unknown.
 *
 * @example
 * ```ts
 * const answer: PathAnswer<Article> = await answerForSlug(history, slug, { load: (id) => db.find(id) });
 * ```
 */
export type PathAnswer<A> =
  | { status: 200; article: A }
  | { status: 301; location: string }
  | { status: 404 }
  | { status: 410 };

/**
 * Options of {@link answerForSlug}.
 *
 * @example
 * ```ts
 * const options: AnswerForSlugOptions<Article> = { load: (id) => db.find(id), location: (slug) => `/articles/${slug}` };
 * ```
 */
export interface AnswerForSlugOptions<A extends VisibilityFields> extends AtOptions {
  /** The stored article of an id (sync or async); `undefined` or `null` when there is none. */
  load: (id: string) => A | null | undefined | Promise<A | null | undefined>;
  /** The `Location` for a slug; defaults to the slug URL-encoded, a URL relative to the requested one (`/articles/old` → `/articles/new`). */
  location?: (slug: string) => string;
}

/**
 * Answers a request for a slug, in this order: unknown → 404; a trashed or archived article's
 * slug (current or old) → 410; the article not public now (draft, review, approved, scheduled
 * for later, or missing from `load`) → 404, so a redirect never reveals an unpublished URL; an
 * old slug → 301 to the current one, a single hop; the current slug → 200 with the article.
 * Public means {@link isPublic} on the article `load` returns, judged at `now`.
 *
 * @example
 * ```ts
 * import { answerForSlug } from 'webhook-cms-receiver/publish';
 * const answer = await answerForSlug(history, params.slug, {
 *   load: (id) => db.find(id),
 *   location: (slug) => `/articles/${encodeURIComponent(slug)}`,
 * });
 * if (answer.status === 301) return Response.redirect(new URL(answer.location, request.url), 301);
 * if (answer.status !== 200) return new Response(null, { status: answer.status });
 * return render(answer.article);
 * ```
 */
export async function answerForSlug<A extends VisibilityFields>(
  history: SlugHistory,
  slug: string,
  options: AnswerForSlugOptions<A>,
): Promise<PathAnswer<A>> {
  const now = nowMs(options);
  const hit = lookupSlug(history, slug);
  if (hit === undefined) return { status: 404 };
  if (hit.kind === 'gone') return { status: 410 };
  const article = await options.load(hit.id);
  if (article === null || article === undefined) return { status: 404 };
  if (article.status === 'archived') return { status: 410 };
  if (!isPublic(article, { now })) return { status: 404 };
  if (hit.kind === 'redirect') return { status: 301, location: (options.location ?? encodeURIComponent)(hit.to) };
  return { status: 200, article };
}
