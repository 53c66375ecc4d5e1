import type { CryptoProvider } from '../crypto/provider.js';
import type { DedupStore } from '../dedup/store.js';
import type { WebhookError } from '../errors/webhook-error.js';
import type { WebhookEvent } from '../events/types.js';

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
  deliveryId: string | null;
  /** How it was recognised: the same delivery id, or the same signature under another id (a replay). */
  matchedBy: 'delivery-id' | 'signature';
  /** True while the first copy is still being handled (answered 409), false once it is done (answered 200). */
  inProgress: boolean;
  event: WebhookEvent;
}

/**
 * Options of {@link createReceiver}. Every default is the secure one.
 */
export interface ReceiverOptions {
  /** The webhook token, or several during rotation: the first is current, the others still accepted. */
  token: string | readonly string[];
  /** Largest accepted distance between the timestamp header and now. Default 300. */
  toleranceSeconds?: number;
  /** Largest accepted body. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Where handled deliveries are remembered. Default `memoryDedupStore()`; `false` turns dedup off. */
  dedup?: DedupStore | false;
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number;
  /** HMAC implementation. Default: node:crypto where available, else Web Crypto. */
  crypto?: CryptoProvider;
  /** Called for every refused delivery, with the internal reason. */
  onRejected?: (error: WebhookError, info: RejectionInfo) => void;
  /** Called when a delivery is answered from the dedup store instead of running the handler. */
  onDuplicate?: (info: DuplicateInfo) => void;
  /** Called when a handler throws. The service gets only `500 Handler failed`. */
  onError?: (error: unknown, event: WebhookEvent) => void;
}
