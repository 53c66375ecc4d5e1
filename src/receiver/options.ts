import type { CryptoProvider } from '../crypto/provider.js';
import type { DedupStore } from '../dedup/store.js';
import type { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';
import type { InspectedDelivery } from './inspected-delivery.js';
import type { Instrumentation } from './instrumentation.js';
import type { Logger } from './logger.js';
import type { DeliveryQueue } from './queue-types.js';
import type { Ledger } from '../ledger/ledger.js';
import type { WebhookHandlers } from './handlers.js';
import type { TenantResolver } from './tenants/tenant.js';
import type { RotationDeadline, TokenSource } from './tokens/token-source.js';

/** The default of `toleranceSeconds`: how far the timestamp header may be from now. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The default of `maxBodyBytes`: 10 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** What a hook learns about a refused delivery. Never contains the token or a computed signature. */
export interface RejectionInfo {
  /** The internal reason, e.g. which check failed and by how much. Same as `error.reason`. */
  reason: string;
  /** `X-Service-Delivery-Id` as received, if any. Unverified: the service does not sign it. */
  deliveryId: string | null;
  /** `X-Service-Event` as received, if any. Informational only. */
  eventHeader: string | null;
}

/** What a hook learns about a delivery answered from the dedup store. */
export interface DuplicateInfo {
  deliveryId: string;
  /** True while the first copy is still being handled (answered 409), false once it is done (answered 200). */
  inProgress: boolean;
  event: WebhookEvent;
}

/** What `onStale` learns about an article delivery skipped as older than one already applied. */
export interface StaleInfo {
  deliveryId: string;
  articleId: string;
  /** The skipped delivery's envelope timestamp. */
  timestamp: number;
  /** The newest timestamp already applied for this article. */
  newerTimestamp: number;
  event: WebhookEvent;
}

/**
 * Options of {@link createReceiver}: exactly one credential, `token` or `tenants`, with the
 * {@link ReceiverSettings} every receiver shares. Every default is the secure one.
 *
 * @example
 * ```ts
 * createReceiver({ token: process.env.WEBHOOK_TOKEN });                 // one site
 * createReceiver({ tenants: (tokenSha256) => sites.get(tokenSha256) }); // many sites
 * ```
 */
export type ReceiverOptions = TokenReceiverOptions | TenantReceiverOptions;

/** {@link ReceiverOptions} for one site: its token, a list of them, or a token source. */
export interface TokenReceiverOptions extends ReceiverSettings {
  /**
   * The webhook token, or several during rotation (the first is current, the others still
   * accepted), or a {@link TokenSource}: a function, sync or async, returning either, or
   * `{ tokens, rotatingUntil? }`, read before the first delivery, kept for `tokenCacheMs` and
   * read again at once (at most once a second) when a delivery presents an unknown token.
   * Until a read succeeds, deliveries are answered 503 `Token unavailable` (retried).
   * Required, so a missing credential is caught by the compiler; `undefined` (an unset
   * environment variable) is caught by `createReceiver`, with the fix.
   */
  token: string | readonly string[] | TokenSource | undefined;
  /** Only with {@link TenantReceiverOptions}: a receiver has one credential. */
  tenants?: undefined;
}

/** {@link ReceiverOptions} for many sites at one endpoint, each with its own token. */
export interface TenantReceiverOptions extends ReceiverSettings {
  /**
   * Tenant mode, instead of `token`: many sites, each with its own token, at one endpoint. Called
   * with the SHA-256 hex of the presented Bearer token (never the token), returning the
   * `Tenant` it belongs to or undefined. The token is then compared with the tenant's in
   * constant time, article events must name the tenant's `profileId`/`domain` (else 403
   * `Profile mismatch`), handlers get `event.tenant`, and dedup keys, ordering marks, job ids
   * and kept requests are kept per tenant. Passing both `tenants` and `token` throws.
   *
   * @example
   * ```ts
   * const receiver = createReceiver({ tenants: (tokenSha256) => sitesByTokenHash.get(tokenSha256) });
   * ```
   */
  tenants: TenantResolver;
  /** Only with {@link TokenReceiverOptions}: each site's token comes from `tenants`. */
  token?: undefined;
}

/** What every receiver takes besides its credential (see {@link ReceiverOptions}). */
export interface ReceiverSettings {
  /**
   * Tenant mode: lookups of token hashes not in the cache, per second, beyond which a request
   * is answered 503 `Token unavailable` (the service retries it) without calling `tenants`, so
   * a flood of random tokens cannot become a flood of database queries. Default 50.
   */
  tenantLookupsPerSecond?: number;
  /** How long a token source's answer (or a found tenant) is kept, in milliseconds. Default 60 000. */
  tokenCacheMs?: number;
  /**
   * How long one read of a token source (or one `tenants` lookup) may take, in milliseconds,
   * before it counts as failed: reported to `onError` (at most once a minute), the last good
   * list kept, and a delivery that has none answered 503 `Token unavailable` (retried), so a
   * hung secret manager or database never holds deliveries. Default 5000, half the service's
   * 10 s delivery timeout.
   */
  tokenReadTimeoutMs?: number;
  /**
   * Arms a rotation window until this moment (a `Date`, epoch ms or ISO string, ahead of now
   * and at most 24 h ahead, else `createReceiver` throws; a token source's own `rotatingUntil`
   * wins over it). While armed, a well-formed
   * Bearer token that matches none is answered 503 `Token rotation in progress` with
   * `Retry-After: 60` instead of 401, and the request is kept until a token verifies it, so
   * regenerating the token loses no delivery. Unset (the default), an unknown token is a 401.
   */
  rotatingUntil?: RotationDeadline;
  /** Most requests kept during a rotation window (per store). Default 1000. */
  maxKeptRequests?: number;
  /** Most bytes of kept requests during a rotation window (per store). Default 64 MiB. */
  maxKeptBytes?: number;
  /**
   * The handlers requests kept during a rotation window are processed with before a delivery
   * has brought the adapter's own (an adapter hands the receiver its handlers with each
   * delivery; those win once given). Set it so an instance redeployed with the new token
   * processes what the old one kept without waiting for a delivery; without it (and outside
   * queue mode, where a worker runs the handlers) kept requests wait for the first delivery.
   */
  handlers?: WebhookHandlers;
  /**
   * The delivery ledger: one row per request this receiver gets (what it was, what was
   * answered), refusals included as unverified, and with `keepRefused` the refused deliveries
   * kept for `ledger.recover()`. Writing it never delays or changes an answer: a ledger that is
   * down costs a `warn` line. Make it with `memoryLedger()`, `postgresLedger()`,
   * `redisLedger()` or `dynamoDbLedger()`; see docs/ledger.md.
   *
   * @example
   * ```ts
   * const ledger = postgresLedger(pool, { keepRefused: true });
   * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger, handlers });
   * ```
   */
  ledger?: Ledger;
  /**
   * Largest accepted distance between the timestamp header and now, in seconds. Default 300.
   * Above 3,600 it throws unless `allowLongTolerance` is set: a value in milliseconds by
   * mistake would accept replays for days.
   */
  toleranceSeconds?: number;
  /** Takes a `toleranceSeconds` over an hour. Default false. */
  allowLongTolerance?: boolean;
  /** Largest accepted body. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Where handled deliveries are remembered. Default `memoryDedupStore()`; `false` turns dedup off. */
  dedup?: DedupStore | false;
  /**
   * Skip article deliveries older than one already applied for the same article (a sync
   * retried after a trash would bring a deleted article back): answered
   * `{ ok: true, stale: true }` without running the handler. Also keeps two deliveries for one
   * article from running at once (the second gets 409). Needs a store that supports it; every
   * store in this package does. Default false.
   */
  ordering?: boolean;
  /**
   * How long a handler may run before its `context.signal` is aborted, its claim released and
   * the request answered 500 `Handler failed` (reported to `onError` as `handler_timeout`), so
   * a handler that never settles cannot turn every retry into a 409. The service itself waits
   * 10 s, then retries. Default 300 000 (5 minutes).
   */
  handlerTimeoutMs?: number;
  /**
   * Queue mode: hand each verified delivery to a job engine (`bullmqQueue(queue)`,
   * `pgBossQueue(boss, name)`) and answer 200 `{"ok": true, "queued": true}` at once; workers
   * (`startWorker`) run the handlers, so `published_url` is never answered. The delivery id is
   * claimed in `dedup` (kept for its retention, past the engine's memory of finished jobs), so
   * a redelivery answers `{"ok": true, "queued": true, "duplicate": true}` without a new job.
   * `ordering` belongs to the worker here.
   */
  queue?: DeliveryQueue;
  /** Queue mode: how long the engine may take to accept a job before the answer is 503. Default 5000. */
  enqueueTimeoutMs?: number;
  /**
   * Queue mode, hybrid answers: after enqueueing, wait up to this long for a worker to finish
   * the job, and answer as `handle()` would (with its `published_url`) when it did; otherwise
   * answer `queued` as usual. Keep it well under the service's 10 s (at most 8000, and with
   * `enqueueTimeoutMs` under 10 s). `published_url` can only reach the service this way. Default 0.
   */
  queueWaitMs?: number;
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number;
  /** HMAC implementation. Default: node:crypto where available, else Web Crypto. */
  crypto?: CryptoProvider;
  /**
   * Where refusals (`warn`, at most one line per code per minute, with a count of those left
   * out), handler failures and host faults (`error`) go when no hook takes them: `console` by
   * default, pino, a framework's logger (`fastify.log`), or `false`. Never the token, a
   * signature or the payload.
   */
  logger?: Logger | false;
  /** Called for every refused delivery, with the internal reason. Replaces the default `warn` line. */
  onRejected?: (error: WebhookError, info: RejectionInfo) => void;
  /** Called when a delivery is answered from the dedup store instead of running the handler. */
  onDuplicate?: (info: DuplicateInfo) => void;
  /** Called when ordering skips a delivery as stale. */
  onStale?: (info: StaleInfo) => void;
  /**
   * Called when a handler throws, the dedup store fails, a lease is lost to another request or
   * the store drops live ids. The service gets only the status. Without it, each is logged
   * once with `console.error` (event name, delivery id, the error; never the token or payload).
   * A token source's failed read (at most once a minute) comes here too, with no event:
   * `event` is then undefined.
   */
  onError?: (error: unknown, event: WebhookEvent) => void;
  /**
   * Development only: called with every delivery the receiver saw, refused or not, with its
   * raw body and answer (`Authorization` redacted). Plug in `createInspector()` from
   * `webhook-cms-receiver/testing`; leave unset in production, where bodies hold articles.
   */
  inspect?: (delivery: InspectedDelivery) => void;
  /**
   * Where each delivery is reported as it goes: start, verification, the handler, the outcome
   * with its status and refusal code. `openTelemetry()` from `webhook-cms-receiver/opentelemetry`
   * makes spans and metrics of it; any {@link Instrumentation} will do. Unset (the default), it
   * costs one property check per delivery. Never sees the token or a signature.
   *
   * @example
   * ```ts
   * import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
   * const receiver = createReceiver({ token, instrumentation: openTelemetry() });
   * ```
   */
  instrumentation?: Instrumentation;
}
