import { tenantScoped } from '../dedup/tenant-scope.js';
import type { QueuedDelivery } from '../receiver/queue-types.js';

/** The SHA-256 (hex) of a delivery id's UTF-16 code units: engines derive job ids from it. */
export { utf16Sha256Hex as sha256Hex } from '../internal/utf16-sha256.js';

/**
 * What an engine's job id is derived from: the delivery id, namespaced by the tenant in tenant
 * mode, so two sites' colliding delivery ids are two jobs. Null for a delivery without an id.
 */
export function queueJobKey(delivery: Pick<QueuedDelivery, 'deliveryId' | 'tenant'>): string | null {
  return delivery.deliveryId === null ? null : tenantScoped(delivery.tenant, delivery.deliveryId);
}
