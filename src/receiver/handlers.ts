import type { ArticleSyncEvent, ArticleTrashEvent, TestEvent, UnknownEvent, WebhookEvent } from '../events/types.js';
import { andThen, type MaybePromise } from '../internal/maybe.js';

/**
 * What a handler may return: anything, such as the row your ORM wrote, or a promise of it.
 * Only a returned object's `publishedUrl` (or `published_url`) string is used: it is answered
 * as `published_url` and shown in the service's dashboard.
 */
export type HandlerResult = unknown;

/**
 * What a handler gets besides its event. With a transactional store
 * (`postgresDedupStore(db, { transactional: true })`), `tx` is the database transaction that
 * also records the delivery: write through it and the writes commit with the done row, or
 * neither does.
 */
export interface HandlerContext {
  tx?: unknown;
  /**
   * Aborted when the handler outlives `handlerTimeoutMs` (default 5 minutes): pass it to the
   * `fetch` calls and queries the handler awaits, so abandoned work stops too.
   */
  readonly signal?: AbortSignal;
}

/** What every handler gets, whatever the store: the deadline's signal. */
export interface HandlerSignal {
  /** Aborted when the handler outlives `handlerTimeoutMs`; the delivery is then released for a retry. */
  readonly signal: AbortSignal;
}

/**
 * One function per event; a missing one acknowledges the event without doing anything.
 *
 * @example
 * ```ts
 * const handlers: WebhookHandlers = {
 *   'article.sync': async ({ article }) => ({ publishedUrl: await publish(article) }),
 *   'article.trash': ({ article }) => db.post.delete({ where: { slug: article.slug } }),
 * };
 * ```
 */
// Method signatures on purpose: handlers typed for a store's context (`{ tx: PoolClient }`)
// stay assignable where plain `WebhookHandlers` are taken.
export interface WebhookHandlers<C extends HandlerContext = HandlerContext> {
  'article.sync'?(event: ArticleSyncEvent, context: C & HandlerSignal): HandlerResult;
  'article.trash'?(event: ArticleTrashEvent, context: C & HandlerSignal): HandlerResult;
  test?(event: TestEvent, context: C & HandlerSignal): HandlerResult;
  /** Events this version does not know yet; `event.name` says which. */
  unknown?(event: UnknownEvent, context: C & HandlerSignal): HandlerResult;
}

/**
 * Runs the handler for the event and gives the `published_url` it reported, if any. A
 * synchronous handler gets a synchronous answer, so the common path needs no promise turn.
 * Throws (or rejects) when the handler does.
 */
export function runHandler(
  handlers: WebhookHandlers | undefined,
  event: WebhookEvent,
  context: HandlerContext,
): MaybePromise<string | undefined> {
  const handler = handlers?.[event.type] as ((event: WebhookEvent, context: HandlerContext) => unknown) | undefined;
  if (typeof handler !== 'function') return undefined;
  // Called unbound, as a property read off the object: `this` means nothing to a handler.
  return andThen(handler.call(undefined, event, context), urlOf);
}

function urlOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { publishedUrl, published_url } = result as { publishedUrl?: unknown; published_url?: unknown };
  const url = publishedUrl ?? published_url;
  return typeof url === 'string' ? url : undefined;
}
