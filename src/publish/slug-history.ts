import { type ArticleDelivery, isGone } from './delivery.js';

/**
 * Every slug a site has served, for redirects and 410s: a plain, JSON-serializable record that
 * {@link recordSlug} updates in place (store it as one JSON value, or as small tables).
 *
 * - `articles`: by article id, its current slug and whether it is gone (trashed or archived).
 * - `slugs`: every slug ever recorded, to the id of the article it answers for now.
 * - `holders`: by slug, the ids of the live articles whose current slug it is, the newest last
 *   (usually one; two while two articles are synced with one slug). Rebuilt from the other two
 *   when a history stored before it existed is read.
 *
 * An old slug points at its article, and the article at its one current slug, so a redirect is
 * always one hop: after a → b and b → c, both a and b answer 301 to c. A slug has one owner:
 * the newest live article holding it, then, when that one moves on or is trashed, the live
 * article that still holds it, so trashing an article never takes down another one's page.
 *
 * @example
 * ```ts
 * let history: SlugHistory = JSON.parse(await kv.get('slug-history') ?? 'null') ?? emptySlugHistory();
 * ```
 */
export interface SlugHistory {
  articles: Record<string, { slug: string; gone: boolean }>;
  slugs: Record<string, string>;
  holders?: Record<string, string[]>;
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

// Slugs and ids come from the network: read own properties only, and write by defining own
// properties, so `__proto__` or `constructor` is a slug like any other and no prototype changes.
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
const put = <T>(record: Record<string, T>, key: string, value: T) =>
  void Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });

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
  return { articles: {}, slugs: {}, holders: {} };
}

/**
 * Records a delivery in the history, in place, and returns it: O(1) per delivery, whatever the
 * number of articles (copy it first with `structuredClone` if the previous state is needed).
 * A sync takes its slug even from another live article (the newest delivery wins), and the
 * article's previous slug becomes a redirect to the new one, or goes back to another live
 * article that still holds it. A trash or an archive marks every slug of the article gone
 * (410), except a slug another live article holds: that one keeps answering for it.
 *
 * @example
 * ```ts
 * import { recordSlug } from 'webhook-cms-receiver/publish';
 * recordSlug(history, event); // on every article.sync and article.trash
 * await kv.put('slug-history', JSON.stringify(history));
 * ```
 */
export function recordSlug(history: SlugHistory, delivery: ArticleDelivery): SlugHistory {
  const { id, slug } = delivery.article;
  const gone = isGone(delivery);
  history.holders ??= holdersOf(history);
  const holders = history.holders;
  const before = own(history.articles, id);
  if (before && !before.gone) leave(holders, before.slug, id);
  put(history.articles, id, { slug, gone });
  if (!gone) put(holders, slug, [...(own(holders, slug) ?? []), id]);
  for (const at of before && before.slug !== slug ? [before.slug, slug] : [slug]) {
    const owner = own(holders, at)?.at(-1);
    // No live holder: the slug stays with its last owner (a redirect or a 410), or becomes this
    // gone article's own.
    if (owner !== undefined) put(history.slugs, at, owner);
    else if (at === slug || own(history.slugs, at) === undefined) put(history.slugs, at, id);
  }
  return history;
}

function leave(holders: Record<string, string[]>, slug: string, id: string): void {
  const rest = (own(holders, slug) ?? []).filter((holder) => holder !== id);
  if (rest.length > 0) put(holders, slug, rest);
  else delete holders[slug];
}

/** The holders of a history stored before they were kept: each live article at its own slug, the slug's owner last. */
function holdersOf(history: SlugHistory): Record<string, string[]> {
  const holders: Record<string, string[]> = {};
  for (const [id, entry] of Object.entries(history.articles)) {
    if (entry.gone) continue;
    const ids = own(holders, entry.slug) ?? [];
    put(holders, entry.slug, own(history.slugs, entry.slug) === id ? [...ids, id] : [id, ...ids]);
  }
  return holders;
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
