/** Options of {@link deliver}. */
export interface DeliverOptions {
  /** The endpoint's token: sent as the Bearer credential and used as the HMAC key. */
  token: string;
  /** The envelope (serialised with `JSON.stringify`), or the exact raw body. */
  payload: object | string;
  /** `X-Service-Delivery-Id`, the same on every attempt. Default: a random UUID. */
  deliveryId?: string;
  /** Flip one byte of the body after signing: the endpoint must answer 403 Invalid signature. */
  tamper?: boolean;
  /** Sign and authenticate with another token: the endpoint must answer 401 Invalid token. */
  wrongToken?: boolean;
  /** Back-date the timestamp by this many seconds (still correctly signed): 300 or more must get 403 Request expired. */
  staleBy?: number;
  /** Multiplies the retry delays and the 10 s timeout, e.g. 0.01 in tests. Default 1: the service's schedule. */
  timeScale?: number;
  /** How many attempts at most, 1 to 4. Default 4, like the service before its scheduler takes over. */
  maxAttempts?: number;
  /**
   * The fetch to send with. Default `globalThis.fetch`. It is called with `redirect: 'manual'`,
   * since the service follows no redirect; a fetch that follows one anyway hides it.
   */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Called after each attempt, as it happens. */
  onAttempt?: (attempt: DeliveryAttempt) => void;
}

/** One HTTP attempt of a delivery. */
export interface DeliveryAttempt {
  /** 1 for the first attempt. */
  number: number;
  /** The HTTP status, or null when no answer came (unreachable, timeout). */
  status: number | null;
  /**
   * The answer's body: parsed JSON, or the text when it is not JSON; null without an answer.
   * Only the first 64 KiB are read (see `bodyTruncated`).
   */
  body: unknown;
  /** Present when the answer went on past 64 KiB: the rest was not read, and the connection was closed. */
  bodyTruncated?: true;
  /** The `Location` of a redirect (3xx): the service does not follow it, and neither does `deliver`. */
  location?: string;
  /** Why no answer came, naming the probable fix; null when there was an answer. */
  error: string | null;
  /** How long the attempt took, in milliseconds. */
  elapsedMs: number;
  /** When the attempt started, in milliseconds after the first one started. */
  startedAtMs: number;
  /** The `X-Service-Timestamp` this attempt sent (fresh on every attempt). */
  timestamp: string;
  /** Milliseconds until the next attempt, or null when this was the last. */
  retryInMs: number | null;
}

/** What {@link deliver} saw: every attempt and how the delivery ended. */
export interface DeliveryResult {
  /** `delivered` on a 2xx; `refused` on 401 or 403 (never retried); `gave-up` after the last attempt failed. */
  outcome: 'delivered' | 'refused' | 'gave-up';
  deliveryId: string;
  attempts: DeliveryAttempt[];
  /** The `published_url` of the successful answer, as the service would store it. */
  publishedUrl?: string;
  /** How it ended, in the four facts a test asserts on, and why when it failed. */
  summary: DeliverySummary;
}

/**
 * The end of a delivery at a glance.
 *
 * @example
 * ```ts
 * expect((await deliver(url, options)).summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl: null });
 * ```
 */
export interface DeliverySummary {
  /** True when the last attempt got a 2xx. */
  ok: boolean;
  /** True when the endpoint answered `"duplicate": true`: it had already handled this delivery id. */
  duplicate: boolean;
  /** The last attempt's HTTP status, or null when no answer came. */
  status: number | null;
  /** The `published_url` of a successful answer, or null. */
  publishedUrl: string | null;
  /**
   * True when the endpoint answered `"stale": true`: `ordering` skipped the delivery because a
   * newer one for the same article had already been handled, so its handler did not run.
   * Absent otherwise, so `toEqual` on the four facts above still holds for a handled delivery.
   */
  stale?: true;
  /**
   * Why the delivery failed, in a sentence naming the fix (e.g. `403 Request expired: …`), so a
   * test's diff shows it. Absent when `ok`, so `toEqual` on the four facts above still holds.
   */
  reason?: string;
}
