/** Article statuses the service documents; later ones arrive as plain strings. */
export type ArticleStatus = 'draft' | 'review' | 'approved' | 'published' | 'archived' | (string & {});

/** The full article sent with `article.sync`. Field names are the service's own. */
export interface SyncArticle {
  id: string;
  title: string;
  slug: string;
  status: ArticleStatus;
  content_markdown: string;
  content_html: string;
  meta_description: string;
  featured_image_url: string | null;
  tags: string[];
  scheduled_at: string | null;
  published_at: string | null;
}

/** What `article.trash` says of the deleted article: enough to find and remove it. */
export interface TrashArticle {
  id: string;
  slug: string;
}

/** The site the article belongs to. */
export interface Profile {
  id: string;
  domain: string;
}

/** The JSON body of a delivery, as the service sends it. Extra fields are kept, not checked. */
export interface Envelope<E extends string = string, A = unknown, P = unknown> {
  event: E;
  /** Unix seconds, set by the service when it built the envelope. */
  timestamp: number;
  article: A;
  profile: P;
  [extra: string]: unknown;
}

/**
 * The body of an `article.sync` delivery.
 *
 * @example
 * ```ts
 * const envelope: ArticleSyncEnvelope = articleSyncPayload({ article: { slug: 'hello' } });
 * ```
 */
export type ArticleSyncEnvelope = Envelope<'article.sync', SyncArticle, Profile>;
/**
 * The body of an `article.trash` delivery: only the article's id and slug.
 *
 * @example
 * ```ts
 * const envelope: ArticleTrashEnvelope = articleTrashPayload({ article: { slug: 'hello' } });
 * ```
 */
export type ArticleTrashEnvelope = Envelope<'article.trash', TrashArticle, Profile>;
/**
 * The body of the dashboard's Test Connection delivery.
 *
 * @example
 * ```ts
 * const envelope: TestEnvelope = { event: 'test', timestamp: 1767225600, article: null, profile: null };
 * ```
 */
export type TestEnvelope = Envelope<'test', null, null>;

interface EventBase<P extends Envelope> {
  /** The envelope's event name, the same as `type` except on unknown events. */
  name: P['event'];
  /** `X-Service-Delivery-Id`, or null where the service did not send one. */
  deliveryId: string | null;
  /** The envelope's own `timestamp` (Unix seconds). */
  timestamp: number;
  /** The whole parsed envelope, extra fields included. */
  payload: P;
  /** Which configured token matched: 0 is the current one, higher means a rotated-out token is still in use. */
  tokenIndex: number;
  /** Tenant mode (`createReceiver({ tenants })`): the site this delivery came for. Undefined otherwise. */
  tenant?: { readonly id: string };
}

/** An article was created, updated or changed status. */
export interface ArticleSyncEvent extends EventBase<ArticleSyncEnvelope> {
  type: 'article.sync';
  deliveryId: string;
  article: SyncArticle;
  profile: Profile;
}

/** An article was deleted. */
export interface ArticleTrashEvent extends EventBase<ArticleTrashEnvelope> {
  type: 'article.trash';
  deliveryId: string;
  article: TrashArticle;
  profile: Profile;
}

/** The dashboard's Test Connection button. */
export interface TestEvent extends EventBase<TestEnvelope> {
  type: 'test';
}

/**
 * An event name this version does not know yet (for example `job.completed`). `type` is
 * `'unknown'` so that checks on `type` narrow cleanly; the real name is in `name`.
 */
export interface UnknownEvent extends EventBase<Envelope> {
  type: 'unknown';
  name: string;
}

/**
 * A verified delivery, discriminated on `type`.
 *
 * @example
 * ```ts
 * const event = await receiver.verify({ headers, body });
 * if (event.type === 'article.sync') await publish(event.article.slug, event.article.content_html);
 * ```
 */
export type WebhookEvent = ArticleSyncEvent | ArticleTrashEvent | TestEvent | UnknownEvent;

/** The event names this version understands. */
export type KnownEventType = Exclude<WebhookEvent['type'], 'unknown'>;
