/**
 * Stable machine names for every way a delivery can be refused or fail.
 * They never change meaning between versions, so they are safe to switch on and to log.
 */
export type WebhookErrorCode =
  | 'payload_too_large'
  | 'invalid_token'
  | 'invalid_timestamp'
  | 'request_expired'
  | 'invalid_signature'
  | 'invalid_payload'
  | 'missing_delivery_id'
  | 'invalid_delivery_id'
  | 'handler_timeout'
  | 'delivery_in_progress'
  | 'handler_failed'
  | 'dedup_unavailable'
  | 'dedup_overflow'
  | 'queue_unavailable'
  | 'token_unavailable'
  | 'token_rotating'
  | 'profile_mismatch'
  | 'method_not_allowed'
  | 'body_already_parsed'
  | 'internal_error';

/** The HTTP status and public `error` text of each code. The text is what the service sees. */
const ANSWERS: Record<WebhookErrorCode, readonly [status: number, message: string]> = {
  payload_too_large: [413, 'Payload too large'],
  invalid_token: [401, 'Invalid token'],
  invalid_timestamp: [403, 'Invalid timestamp'],
  request_expired: [403, 'Request expired'],
  invalid_signature: [403, 'Invalid signature'],
  invalid_payload: [400, 'Invalid payload'],
  missing_delivery_id: [400, 'Missing delivery id'],
  // A repeated header (joined `a, b` by every host's header API) is never a key to deduplicate on.
  invalid_delivery_id: [400, 'Invalid delivery id'],
  delivery_in_progress: [409, 'Delivery in progress'],
  handler_failed: [500, 'Handler failed'],
  // Answered as a handler failure: the service sees a 500 and retries, the code tells the deadline apart.
  handler_timeout: [500, 'Handler failed'],
  // 503 rather than 500: the delivery was fine, our storage was not, and the service retries either way.
  dedup_unavailable: [503, 'Dedup store unavailable'],
  // A warning, not a refusal: memoryDedupStore dropped ids still inside their retention to stay
  // within maxEntries, and hands it to onError while the delivery is processed. A store that
  // threw it would be answered 503, retried like any store failure.
  dedup_overflow: [503, 'Dedup store full'],
  // Queue mode: the job engine did not take the delivery in time; the service retries a 503.
  queue_unavailable: [503, 'Queue unavailable'],
  // A token source that has not answered yet: the service retries a 503, never a 401.
  token_unavailable: [503, 'Token unavailable'],
  // A plausible unknown token while a rotation window is armed: kept and retried, never lost to a 401.
  token_rotating: [503, 'Token rotation in progress'],
  // Tenant mode: a site's token signed an envelope naming another profile.
  profile_mismatch: [403, 'Profile mismatch'],
  method_not_allowed: [405, 'Method not allowed'],
  body_already_parsed: [500, 'Server misconfigured'],
  internal_error: [500, 'Internal error'],
};

// A registered symbol, shared by every copy of the package in one realm.
const BRAND = Symbol.for('webhook-cms-receiver.WebhookError');

/**
 * A refused or failed delivery. `status` is the HTTP status to answer, `message` the public
 * `error` text, `code` the stable machine name and `reason` the internal detail for logs.
 * None of them ever contains the token or a computed signature.
 *
 * @example
 * ```ts
 * try {
 *   const event = await receiver.verify({ headers, body });
 * } catch (error) {
 *   if (error instanceof WebhookError) return new Response(JSON.stringify({ error: error.message }), { status: error.status });
 *   throw error;
 * }
 * ```
 */
export class WebhookError extends Error {
  /**
   * True for a WebhookError from any copy of this package (the ESM and CommonJS builds each
   * have their own class), so `instanceof` works wherever the error came from.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  override readonly name = 'WebhookError';
  readonly code: WebhookErrorCode;
  readonly status: number;
  /** Why the check failed, for logs and hooks; never sent to the service. */
  readonly reason: string;

  constructor(code: WebhookErrorCode, reason: string, options?: { cause?: unknown }) {
    const [status, message] = ANSWERS[code];
    super(message, options);
    this.code = code;
    this.status = status;
    this.reason = reason;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** The JSON body to answer with: only the public text, never the reason. */
  toJSON(): { error: string } {
    return { error: this.message };
  }
}

/**
 * Tells a `WebhookError` apart from any other thrown value, also across bundle copies where
 * `instanceof` fails.
 *
 * @example
 * ```ts
 * catch (error) { if (isWebhookError(error)) console.warn(error.code, error.reason); }
 * ```
 */
export function isWebhookError(value: unknown): value is WebhookError {
  return (
    value instanceof WebhookError ||
    (value instanceof Error && value.name === 'WebhookError' && 'code' in value && 'status' in value)
  );
}
