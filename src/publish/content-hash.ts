import type { SyncArticle } from 'webhook-cms-receiver';
import { parseArticleDate } from './article-date.js';
import { type AtOptions, nowMs } from './visibility.js';

/**
 * The fields that make an article's page: a change to any of them is a change of content.
 * Status and dates are left out on purpose: publishing, unpublishing or rescheduling does not
 * change what the page says, so it must not move a sitemap's `lastmod`.
 *
 * @example
 * ```ts
 * const fields: ContentFields = { title, slug, content_html, content_markdown, meta_description, featured_image_url, tags };
 * ```
 */
export type ContentFields = Pick<
  SyncArticle,
  'title' | 'slug' | 'content_html' | 'content_markdown' | 'meta_description' | 'featured_image_url' | 'tags'
>;

/** One canonical string of the content fields, in a fixed order, so equal content gives equal text. */
function contentKey(article: ContentFields): string {
  return JSON.stringify([
    article.title,
    article.slug,
    article.content_html,
    article.content_markdown,
    article.meta_description,
    article.featured_image_url ?? null,
    article.tags ?? [],
  ]);
}

/**
 * Whether two versions of an article say the same thing: title, slug, HTML, Markdown, meta
 * description, featured image and tags all equal. Synchronous; {@link contentHash} hashes
 * exactly these fields.
 *
 * @example
 * ```ts
 * import { sameContent } from 'webhook-cms-receiver/publish';
 * if (!sameContent(stored, event.article)) await revalidatePath(`/articles/${event.article.slug}`);
 * ```
 */
export function sameContent(a: ContentFields, b: ContentFields): boolean {
  return contentKey(a) === contentKey(b);
}

/**
 * SHA-256 (hex, 64 characters) of the article's content fields ({@link ContentFields}), with
 * Web Crypto's `crypto.subtle.digest`, which Node 20+, Bun, Deno and Workers all have, so it
 * needs no Node module and no dependency. Equal content gives the same hash on every runtime.
 *
 * @example
 * ```ts
 * import { contentHash } from 'webhook-cms-receiver/publish';
 * const hash = await contentHash(event.article); // store it beside the article
 * ```
 */
export async function contentHash(article: ContentFields): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(contentKey(article)));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * What a sitemap needs to keep per article: the hash of its content and the ISO 8601 instant
 * that content was first seen.
 *
 * @example
 * ```ts
 * const stamp: Lastmod = { hash: await contentHash(article), lastmod: '2026-01-01T09:00:00.000Z' };
 * ```
 */
export interface Lastmod {
  hash: string;
  lastmod: string;
}

/**
 * The article's `lastmod` after this sync: the previous one kept when the content hash is
 * unchanged (a status change, a redelivery, a reschedule), otherwise the current time. The
 * first time an article is seen its `published_at` is used when it is a valid date not in the
 * future, so a site filled from existing articles does not stamp them all with today. The
 * envelope has no `updated_at`, and a sitemap that writes `new Date()` on every request teaches
 * search engines to ignore its `lastmod`.
 *
 * @example
 * ```ts
 * import { nextLastmod } from 'webhook-cms-receiver/publish';
 * const stamp = await nextLastmod(await db.lastmodOf(article.id), article);
 * await db.saveLastmod(article.id, stamp); // <lastmod>{stamp.lastmod}</lastmod> in sitemap.xml
 * ```
 */
export async function nextLastmod(
  previous: Lastmod | null | undefined,
  article: ContentFields & { published_at?: string | null },
  options?: AtOptions,
): Promise<Lastmod> {
  const hash = await contentHash(article);
  if (previous && previous.hash === hash) return { hash, lastmod: previous.lastmod };
  const now = nowMs(options);
  const published = parseArticleDate(article.published_at) ?? Number.NaN;
  const at = previous === null || previous === undefined ? firstSeen(published, now) : now;
  return { hash, lastmod: new Date(at).toISOString() };
}

function firstSeen(published: number, now: number): number {
  return Number.isNaN(published) || published > now ? now : published;
}
