import type { SyncArticle, TrashArticle } from 'webhook-cms-receiver';

/**
 * One delivery as `/publish` reads it: the `type` and `article` of a verified event. An
 * `ArticleSyncEvent` or `ArticleTrashEvent` from the receiver is one as it is.
 *
 * @example
 * ```ts
 * const receiver = createReceiver({ token });
 * const handlers: WebhookHandlers = {
 *   'article.sync': (event) => apply(event), // event is an ArticleDelivery
 *   'article.trash': (event) => apply(event),
 * };
 * ```
 */
export type ArticleDelivery =
  | { type: 'article.sync'; article: SyncArticle }
  | { type: 'article.trash'; article: TrashArticle };

/**
 * What a site stored of an article before this delivery: the last delivery it applied, or just
 * the last synced article (a row without a trash marker), or nothing yet.
 *
 * @example
 * ```ts
 * const stored: StoredVersion = await db.lastDelivery(event.article.id); // or the article row, or null
 * ```
 */
export type StoredVersion = ArticleDelivery | SyncArticle | null | undefined;

/** The stored version as a delivery: a bare article row counts as its last sync. */
export function asDelivery(stored: StoredVersion): ArticleDelivery | undefined {
  if (stored === null || stored === undefined) return undefined;
  if ('type' in stored && (stored.type === 'article.sync' || stored.type === 'article.trash')) return stored;
  return { type: 'article.sync', article: stored as SyncArticle };
}

/** Trashed, or synced as `archived`: the article's URLs answer 410 Gone. */
export function isGone(delivery: ArticleDelivery): boolean {
  return delivery.type === 'article.trash' || delivery.article.status === 'archived';
}
