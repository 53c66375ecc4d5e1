/**
 * Publishing rules every site that shows delivered articles needs: which articles are public
 * now, what a delivery changed, one-hop redirects for renamed slugs and 410 for trashed ones, a
 * sitemap `lastmod` that moves only with the content, and HTML sanitization. Pure functions over
 * plain data, on every runtime; nothing here touches the receiver, and the core never imports it.
 *
 * @example
 * ```ts
 * import { classifyChange, isPublic, recordSlug } from 'webhook-cms-receiver/publish';
 * const change = classifyChange(stored, event);
 * history = recordSlug(history, event);
 * return change.isPublic ? { published_url: `${site}/articles/${change.slug}` } : undefined;
 * ```
 * @module webhook-cms-receiver/publish
 */
export { isPublic, goesPublicAt, type VisibilityFields, type AtOptions } from './visibility.js';
export { parseArticleDate, invalidDates } from './article-date.js';
export type { ArticleDelivery, StoredVersion } from './delivery.js';
export { classifyChange, type ArticleChange, type ArticleChangeKind } from './classify-change.js';
export { contentHash, sameContent, nextLastmod, type ContentFields, type Lastmod } from './content-hash.js';
export {
  emptySlugHistory,
  recordSlug,
  lookupSlug,
  slugRedirects,
  type SlugHistory,
  type SlugLookup,
  type SlugRedirect,
} from './slug-history.js';
export { answerForSlug, type PathAnswer, type AnswerForSlugOptions } from './answer-for-slug.js';
export {
  sanitizeHtml,
  loadHtmlSanitizer,
  type SanitizeHtmlOptions,
  type HtmlSanitizer,
} from './sanitize-html.js';
