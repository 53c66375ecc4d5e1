import { type ArticleDelivery, isGone } from './delivery.js';

/**
 * Every slug a site has served, for redirects and 410s: a plain, JSON-serializable record that
 * {@link recordSlug} never mutates (store it as one JSON value, or as two small tables).
 *
 * - `articles`: by article id, its current slug and whether it is gone (trashed or archived).
 * - `slugs`: every slug ever recorded, to the id of the article it belongs to now.
 *
 * An old slug points at its article, and the article at its one current slug, so a redirect is
 * always one hop: after a → b and b → c, both a and b answer 301 to c. A slug another article
 * takes is simply pointed at that article: the old redirect is dropped.
 *
 * @example
 * ```ts
 * let history: SlugHistory = JSON.parse(await kv.get('slug-history') ?? 'null') ?? emptySlugHistory();
 * ```
 */
export interface SlugHistory {
  articles: Record<string, { slug: string; gone: boolean }>;
  slugs: Record<string, string>;
}

/**
 * What a slug is in a {@link SlugHistory}: an article's `current` slug, an old slug that
 * `redirect`s to the article's current one, or a slug of a `gone` (trashed or archived) article.
 *
 * @example
 * ```ts
 * const hit: SlugLookup | undefined = lookupSlug(history, 'old-title'); // { kind: 'redirect', id, to: 'new-title' }
 * ```
 */
export type SlugLookup =
  | { kind: 'current'; id: string }
  | { kind: 'redirect'; id: string; to: string }
  | { kind: 'gone'; id: string };

/**
 * One redirect of a {@link SlugHistory}, as {@link slugRedirects} lists them.
 *
 * @example
 * ```ts
 * const line = ({ from, to }: SlugRedirect) => `/articles/${from} /articles/${to} 301`;
 * ```
 */
export interface SlugRedirect {
  from: string;
  to: string;
  id: string;
}

// Slugs and ids come from the network: read own properties only, so `__proto__` or
// `constructor` is a slug like any other. Writes go through object spread and computed keys,
// which define own properties and never touch a prototype.
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/**
 * A history with no slugs yet.
 *
 * @example
 * ```ts
 * import { emptySlugHistory } from 'webhook-cms-receiver/publish';
 * let history = emptySlugHistory();
 * ```
 */
export function emptySlugHistory(): SlugHistory {
  return { articles: {}, slugs: {} };
}

/**
 * The history after a delivery, as a new record (the old one is left as it was). A sync takes
 * its slug even from another article (the newest delivery wins), and the article's previous
 * slug, where it still points at this article, becomes a redirect to the new one. A trash or an
 * archive marks every slug of the article gone (410) and takes its slug only when no other
 * article serves it, so it never turns a live page into a 410.
 *
 * @example
 * ```ts
 * import { recordSlug } from 'webhook-cms-receiver/publish';
 * history = recordSlug(history, event); // on every article.sync and article.trash
 * await kv.put('slug-history', JSON.stringify(history));
 * ```
 */
export function recordSlug(history: SlugHistory, delivery: ArticleDelivery): SlugHistory {
  const { id, slug } = delivery.article;
  const gone = isGone(delivery);
  const holder = own(history.slugs, slug);
  const takes = !gone || holder === undefined || holder === id || !servesCurrently(history, holder, slug);
  return {
    articles: { ...history.articles, [id]: { slug, gone } },
    slugs: takes ? { ...history.slugs, [slug]: id } : history.slugs,
  };
}

/** Whether `slug` is the current slug of the article `id`, still its own. */
function servesCurrently(history: SlugHistory, id: string, slug: string): boolean {
  const entry = own(history.articles, id);
  return entry !== undefined && !entry.gone && entry.slug === slug;
}

/**
 * What a slug is now: the current slug of an article, an old one redirecting to it (one hop),
 * a slug of a trashed or archived article, or `undefined` when no article has it: a slug never
 * recorded, or the old slug of an article whose current slug another article took since.
 *
 * @example
 * ```ts
 * import { lookupSlug } from 'webhook-cms-receiver/publish';
 * const hit = lookupSlug(history, params.slug);
 * if (hit?.kind === 'redirect') return Response.redirect(new URL(`/articles/${hit.to}`, request.url), 301);
 * ```
 */
export function lookupSlug(history: SlugHistory, slug: string): SlugLookup | undefined {
  const id = own(history.slugs, slug);
  const entry = id === undefined ? undefined : own(history.articles, id);
  if (id === undefined || entry === undefined) return undefined;
  if (entry.gone) return { kind: 'gone', id };
  if (entry.slug === slug) return { kind: 'current', id };
  // Redirect only to a slug this article still holds, never to another article's page.
  return own(history.slugs, entry.slug) === id ? { kind: 'redirect', id, to: entry.slug } : undefined;
}

/**
 * Every redirect of the history, one hop each, for a static host's redirect file or a
 * middleware's table. It lists old slugs of articles that are not gone; whether the target is
 * public now is for the caller to check (see {@link answerForSlug}).
 *
 * @example
 * ```ts
 * import { slugRedirects } from 'webhook-cms-receiver/publish';
 * const file = slugRedirects(history).map(({ from, to }) => `/articles/${from} /articles/${to} 301`).join('\n');
 * ```
 */
export function slugRedirects(history: SlugHistory): SlugRedirect[] {
  const redirects: SlugRedirect[] = [];
  for (const from of Object.keys(history.slugs)) {
    const hit = lookupSlug(history, from);
    if (hit?.kind === 'redirect') redirects.push({ from, to: hit.to, id: hit.id });
  }
  return redirects;
}
