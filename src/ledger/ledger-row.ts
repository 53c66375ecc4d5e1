/**
 * One request that reached a receiver, as the delivery ledger records it. It never holds a
 * token, a signature or a header value that could hold one: only what the envelope said and
 * what the receiver answered.
 *
 * A refused request is recorded unverified (`verified: false`): its `event`, `articleId`,
 * `slug` and `deliveryId` are what the request *claimed*, written by whoever sent it, so
 * render them as text and never trust them.
 */
export interface LedgerRow {
  /**
   * Unique, and sorting by it sorts by `receivedAt` (ties broken at random): `r.<13-digit ms>.<random>`.
   * Lists page with it as their cursor.
   */
  id: string;
  /** When the receiver got the request, epoch ms (the receiver's clock). */
  receivedAt: number;
  /** Time from receipt to answer, handler included, in ms. */
  durationMs: number;
  /** False for a refusal: every field below that came from the request is then a claim. */
  verified: boolean;
  /** The `X-Service-Delivery-Id` (verified, or claimed), or null when absent. */
  deliveryId: string | null;
  /** The event name (`article.sync`, `article.trash`, `test`, or an unknown one), or null. */
  event: string | null;
  articleId: string | null;
  slug: string | null;
  /** The article's status in the envelope (`publish`, `draft`, …), or null. */
  articleStatus: string | null;
  profileId: string | null;
  /** Tenant mode: the site's id (verified only), else null. */
  tenant: string | null;
  /** The HTTP status answered. */
  status: number;
  /**
   * What the answer was: `ok`, `duplicate`, `stale`, `queued`, or the `WebhookErrorCode` of a
   * refusal or failure.
   */
  code: string;
  /** Which configured token verified it (0 the current one), or null for a refusal. */
  tokenIndex: number | null;
  /** The `published_url` the handler answered, or null. */
  publishedUrl: string | null;
  /**
   * The how-manieth request with this delivery id (and tenant) the ledger has on record,
   * counting this one: 1 for the first copy, 2 for the service's first retry, … Assigned by the
   * ledger's store when the row is written; 0 for a request without a delivery id.
   */
  copy: number;
  /**
   * A refusal whose body was kept with `keepRefused`, waiting for `recover()` (its kept
   * request's id is this row's `id`). Absent otherwise.
   */
  kept?: boolean;
  /** A row written by `recover()`: the id of the refused row it processed. */
  recoveredFrom?: string;
}

/** A row as the receiver hands it to the ledger, before its store assigns `copy`. */
export type LedgerEntry = Omit<LedgerRow, 'copy'>;

/** What {@link Ledger.list} filters on; every field is optional. */
export interface LedgerQuery {
  /** Rows received at or after this time (epoch ms or a `Date`). */
  since?: number | Date;
  /** Rows received before this time. */
  until?: number | Date;
  /** One HTTP status (`401`), or a class: `'2xx'`, `'4xx'`, `'5xx'`. */
  status?: number | '2xx' | '4xx' | '5xx';
  /** One event name. */
  event?: string;
  /** One article id: that article's history. */
  article?: string;
  /** One tenant. */
  tenant?: string;
  /** One delivery id: every copy of it. */
  deliveryId?: string;
  /** Only verified rows (true) or only refusals (false). */
  verified?: boolean;
  /** At most this many rows (default 50, at most 1000). */
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

/** One page of {@link Ledger.list}: newest first. */
export interface LedgerPage {
  rows: LedgerRow[];
  /** Pass as `cursor` for the next (older) page; absent on the last page. */
  next?: string;
}

/** Counts per outcome for one hour, from {@link Ledger.summary}. */
export interface LedgerHour {
  /** The hour's start, epoch ms (UTC). */
  hour: number;
  /** Answered 2xx (including duplicates and stale copies). */
  delivered: number;
  /** Refused 401 or 403: the ones `recover()` and `resend` are about. */
  refused: number;
  /** Answered 4xx other than 401 and 403. */
  rejected: number;
  /** Answered 5xx: the service retries these. */
  failed: number;
}
