/**
 * The core: verify, parse and deduplicate Webhook CMS deliveries on any runtime, with no dependencies.
 *
 * @example
 * ```ts
 * import { createReceiver } from 'webhook-cms-receiver';
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN! });
 * const { status, body } = await receiver.handle({ headers, body: rawBody }, { 'article.sync': ({ article }) => save(article) });
 * ```
 * @module webhook-cms-receiver
 */
export { createReceiver, type Receiver } from './receiver/assembly/create-receiver.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  DEFAULT_MAX_BODY_BYTES,
  type ReceiverOptions,
  type ReceiverSettings,
  type TenantReceiverOptions,
  type TokenReceiverOptions,
  type RejectionInfo,
  type DuplicateInfo,
  type StaleInfo,
} from './receiver/options.js';
export type { DeliveryInput } from './receiver/verify-delivery.js';
export {
  DEFAULT_TOKEN_CACHE_MS,
  type RotationDeadline,
  type TokenSource,
  type TokenSourceResult,
} from './receiver/tokens/token-source.js';
export type { InspectedDelivery } from './receiver/inspected-delivery.js';
export type {
  Instrumentation,
  DeliveryStart,
  DeliveryTrace,
  DeliveryEnd,
  DeliveryOutcome,
} from './receiver/instrumentation.js';
export type { Logger, LogFields } from './receiver/logger.js';
export { DEFAULT_HANDLER_TIMEOUT_MS } from './receiver/deadline.js';
export { DEFAULT_ENQUEUE_TIMEOUT_MS } from './receiver/queue-mode/queue-mode.js';
export { withQueueMode } from './receiver/queue-mode/with-queue-mode.js';
export type { DeliveryQueue, QueuedDelivery, EnqueueResult, JobResult, QueueStats } from './receiver/queue-types.js';
export * from './queue/index.js';
export type { WebhookHandlers, HandlerResult, HandlerContext, HandlerSignal } from './receiver/handlers.js';
export type { Answer, AnswerBody } from './receiver/answers.js';
export { WebhookError, isWebhookError, type WebhookErrorCode } from './errors/webhook-error.js';
export type {
  WebhookEvent,
  ArticleSyncEvent,
  ArticleTrashEvent,
  TestEvent,
  UnknownEvent,
  KnownEventType,
  SyncArticle,
  TrashArticle,
  Profile,
  ArticleStatus,
  Envelope,
  ArticleSyncEnvelope,
  ArticleTrashEnvelope,
  TestEnvelope,
} from './events/types.js';
export type { HeadersInput } from './input/headers.js';
export type { BodyInput } from './input/body.js';
export { memoryDedupStore, type MemoryDedupStoreOptions } from './dedup/memory-store.js';
export { createLedger } from './ledger/create-ledger.js';
export { memoryLedger } from './ledger/memory-ledger.js';
export { memoryLedgerStore } from './ledger/memory-ledger-store.js';
export type {
  Ledger,
  LedgerSummaryQuery,
  RecoverOptions,
  RecoverReport,
  ResendItem,
} from './ledger/ledger.js';
export type { LedgerEntry, LedgerHour, LedgerPage, LedgerQuery, LedgerRow } from './ledger/ledger-row.js';
export type { LedgerFilter, LedgerLimits, LedgerStore } from './ledger/ledger-store.js';
export {
  DEFAULT_LEDGER_MAX_REFUSED_ROWS,
  DEFAULT_LEDGER_MAX_ROWS,
  DEFAULT_LEDGER_REFUSALS_PER_MINUTE,
  DEFAULT_LEDGER_RETENTION_MS,
  type LedgerOptions,
} from './ledger/ledger-options.js';
export { matchesLedgerFilter } from './ledger/row-filter.js';
export { ledgerOutcome, type LedgerOutcome } from './ledger/outcome-class.js';
export { tenantScoped } from './dedup/tenant-scope.js';
export {
  DEFAULT_TENANT_LOOKUPS_PER_SECOND,
  type Tenant,
  type TenantResolver,
} from './receiver/tenants/tenant.js';
export type { TenantRef } from './receiver/tokens/matched-tenant.js';
export type { KeepLimits, KeptRequest, KeptRequestStore, KeptSummary } from './dedup/kept-requests.js';
export {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type DedupStore,
  type DedupClaim,
  type ClaimOutcome,
  type StoredAnswer,
  type ArticleOrder,
  type TransactOutcome,
  STALE_ANSWER,
} from './dedup/store.js';
export type { CryptoProvider, HmacVerifier, HmacStream } from './crypto/provider.js';
export { nodeCryptoProvider } from './crypto/node-crypto.js';
export { webCryptoProvider } from './crypto/web-crypto.js';
export { ledgerPage, type LedgerPageOptions } from './ledger-page/ledger-page.js';
// The adapter kit moved to 'webhook-cms-receiver/adapter-kit'; its old names stay for one minor version.
export * from './adapter-kit/deprecated.js';
