import { sameContent } from './content-hash.js';
import { type ArticleDelivery, asDelivery, isGone, type StoredVersion } from './delivery.js';
import { type AtOptions, isPublic, nowMs } from './visibility.js';

/**
 * What a delivery changes on the site, the first rule that matches winning:
 *
 * | kind | when | what the site does |
 * | --- | --- | --- |
 * | `trashed` | an `article.trash` for an article not trashed yet | its URLs answer 410 |
 * | `archived` | a sync with status `archived`, the stored version not archived | its URLs answer 410 |
 * | `restored` | a sync of any other status after a trash or an archive | back: public or not, see `isPublic` |
 * | `created` | the first delivery of an article that is not public (a draft) | store it, show nothing |
 * | `published` | public now, not before (first sight, status change, or a schedule come due) | add the page, sitemap, feed |
 * | `unpublished` | public before, not now (back to draft, review, a future schedule) | the page answers 404 |
 * | `renamed` | the slug changed, visibility did not | the old slug answers 301 to the new one |
 * | `updated` | the content changed ({@link sameContent}), nothing above | refresh the page |
 * | `unchanged` | nothing the site shows changed (a redelivery, draft → review) | nothing |
 *
 * `previousSlug` tells of a slug change whatever the kind (a rename while publishing is
 * `published`), so record every delivery in the {@link SlugHistory}, not only `renamed` ones.
 *
 * @example
 * ```ts
 * const kind: ArticleChangeKind = classifyChange(stored, event).kind;
 * ```
 */
export type ArticleChangeKind =
  | 'trashed'
  | 'archived'
  | 'restored'
  | 'created'
  | 'published'
  | 'unpublished'
  | 'renamed'
  | 'updated'
  | 'unchanged';

/**
 * The change a delivery makes, as {@link classifyChange} sees it.
 *
 * @example
 * ```ts
 * const { kind, slug, previousSlug, isPublic } = classifyChange(stored, event);
 * ```
 */
export interface ArticleChange {
  kind: ArticleChangeKind;
  /** The article's id. */
  id: string;
  /** Its slug after this delivery. */
  slug: string;
  /** Its slug before this delivery when that differs, otherwise `null`. */
  previousSlug: string | null;
  /** Whether the stored version was public at `now` (false when nothing was stored). */
  wasPublic: boolean;
  /** Whether the article is public at `now` after this delivery. */
  isPublic: boolean;
  /** Whether title, slug, HTML, Markdown, description, image or tags changed (true on first sight, false on trash). */
  contentChanged: boolean;
}

/**
 * Classifies a delivery against the stored version of its article (the last delivery applied,
 * or the stored article row, or `null` the first time). Both versions are judged at the same
 * `now`, so a schedule that came due since the last delivery counts as already public: the
 * answer describes what a visitor sees change. Store the new version whatever the kind.
 *
 * @example
 * ```ts
 * import { classifyChange } from 'webhook-cms-receiver/publish';
 * const change = classifyChange(await db.find(event.article.id), event);
 * if (change.kind === 'published' || change.kind === 'updated') revalidatePath(`/articles/${change.slug}`);
 * ```
 */
export function classifyChange(stored: StoredVersion, next: ArticleDelivery, options?: AtOptions): ArticleChange {
  const at = { now: nowMs(options) };
  const before = asDelivery(stored);
  const visible = (delivery: ArticleDelivery | undefined) =>
    delivery?.type === 'article.sync' && isPublic(delivery.article, at);
  const contentChanged =
    next.type === 'article.sync' && (before?.type !== 'article.sync' || !sameContent(before.article, next.article));
  const change = {
    id: next.article.id,
    slug: next.article.slug,
    previousSlug: before && before.article.slug !== next.article.slug ? before.article.slug : null,
    wasPublic: visible(before),
    isPublic: visible(next),
    contentChanged,
  };
  return { kind: kindOf(before, next, change), ...change };
}

function kindOf(
  before: ArticleDelivery | undefined,
  next: ArticleDelivery,
  change: Omit<ArticleChange, 'kind'>,
): ArticleChangeKind {
  if (next.type === 'article.trash') return before?.type === 'article.trash' ? 'unchanged' : 'trashed';
  if (isGone(next)) {
    if (before?.type !== 'article.sync' || !isGone(before)) return 'archived';
  } else if (before && isGone(before)) return 'restored';
  if (!before) return change.isPublic ? 'published' : 'created';
  if (change.isPublic && !change.wasPublic) return 'published';
  if (!change.isPublic && change.wasPublic) return 'unpublished';
  if (change.previousSlug !== null) return 'renamed';
  return change.contentChanged ? 'updated' : 'unchanged';
}
