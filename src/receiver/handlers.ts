import type { ArticleSyncEvent, ArticleTrashEvent, TestEvent, UnknownEvent, WebhookEvent } from '../events/types.js';

/** What a handler may return: nothing, or the URL the article now lives at (shown in the dashboard). */
export type HandlerResult = void | undefined | { publishedUrl?: string };

/**
 * One event's handler: may return the article's public URL, synchronously or not.
 * @inline
 */
type Handler<E> = (event: E) => HandlerResult | Promise<HandlerResult>;

/**
 * One function per event; a missing one acknowledges the event without doing anything.
 *
 * @example
 * ```ts
 * const handlers: WebhookHandlers = {
 *   'article.sync': async ({ article }) => ({ publishedUrl: await publish(article) }),
 *   'article.trash': ({ article }) => unpublish(article.slug),
 * };
 * ```
 */
export interface WebhookHandlers {
  'article.sync'?: Handler<ArticleSyncEvent>;
  'article.trash'?: Handler<ArticleTrashEvent>;
  test?: Handler<TestEvent>;
  /** Events this version does not know yet; `event.name` says which. */
  unknown?: Handler<UnknownEvent>;
}

/**
 * Runs the handler for the event and gives the `published_url` it reported, if any. A
 * synchronous handler gets a synchronous answer, so the common path needs no promise turn.
 * Throws (or rejects) when the handler does.
 */
export function runHandler(
  handlers: WebhookHandlers | undefined,
  event: WebhookEvent,
): string | undefined | Promise<string | undefined> {
  const handler = handlers?.[event.type] as Handler<WebhookEvent> | undefined;
  if (typeof handler !== 'function') return undefined;
  const result = handler(event);
  return isThenable(result) ? Promise.resolve(result).then(urlOf) : urlOf(result);
}

function urlOf(result: HandlerResult): string | undefined {
  const url = typeof result === 'object' && result !== null ? result.publishedUrl : undefined;
  return typeof url === 'string' ? url : undefined;
}

export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
