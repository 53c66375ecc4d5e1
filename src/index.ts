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
export { createReceiver, type Receiver } from './receiver/create-receiver.js';
export type { ReceiverOptions, RejectionInfo, DuplicateInfo } from './receiver/options.js';
export type { DeliveryInput } from './receiver/verify-delivery.js';
export type { WebhookHandlers, HandlerResult } from './receiver/handlers.js';
export type { HandleResult, AnswerBody } from './receiver/answers.js';
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
export type { HeadersInput } from './http/headers.js';
export type { BodyInput } from './http/body.js';
export {
  serveRequest,
  verifyRequest,
  type AdapterRequest,
  type RequestBody,
  type AlreadyParsed,
  type HttpAnswer,
} from './http/serve-request.js';
export type { BodyStream, FetchBody } from './http/read-body.js';
export { memoryDedupStore, type MemoryDedupStoreOptions } from './dedup/memory-store.js';
export {
  DEFAULT_LEASE_MS,
  DEFAULT_RETENTION_MS,
  type DedupStore,
  type DedupClaim,
  type ClaimOutcome,
  type StoredResponse,
} from './dedup/store.js';
export type { CryptoProvider, HmacVerifier } from './crypto/provider.js';
export { nodeCryptoProvider } from './crypto/node-crypto.js';
export { webCryptoProvider } from './crypto/web-crypto.js';
