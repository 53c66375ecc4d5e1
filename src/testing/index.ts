/**
 * Helpers for your own tests: sign deliveries exactly as the service does, build realistic payloads, and send them with its retry schedule.
 *
 * @example
 * ```ts
 * import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
 * const { headers, body } = signDelivery({ token: 'test-token', payload: articleSyncPayload() });
 * ```
 * @module webhook-cms-receiver/testing
 */
export { signDelivery, signature, type SignDeliveryOptions, type SignedDelivery } from './sign-delivery.js';
export {
  articleSyncPayload,
  articleTrashPayload,
  testPayload,
  articleFixture,
  profileFixture,
  type PayloadOverrides,
} from './factories.js';
export {
  deliver,
  RETRY_DELAYS_MS,
  ATTEMPT_TIMEOUT_MS,
  type DeliverOptions,
  type DeliveryAttempt,
  type DeliveryResult,
} from './deliver.js';
