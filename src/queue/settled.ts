import type { DedupClaim, DedupStore } from '../dedup/store.js';
import { tenantScoped } from '../dedup/tenant-scope.js';
import type { QueuedDelivery } from '../receiver/queue-types.js';

/** What {@link settledBefore} reads of a queued delivery whose body is gone. */
export type SettledQuery = Pick<QueuedDelivery, 'deliveryId' | 'event' | 'timestamp' | 'tenant'> & {
  articleId?: string;
};

/**
 * What the dedup store says of a queued delivery whose out-of-line body (R2, S3) is missing:
 * `done` when it completed (a copy the queue delivered again after the run that deleted the
 * body), `running` while another copy holds it, `unknown` otherwise (no store, no delivery id,
 * or never run), for which the caller dead-letters. Claims exactly as the worker would have, so
 * the answer comes from the same record, ordering included; a claim it gets is released at once.
 */
export async function settledBefore(
  delivery: SettledQuery,
  store: DedupStore | undefined,
  ordering: boolean,
): Promise<'done' | 'running' | 'unknown'> {
  const { deliveryId: sent, event, timestamp, articleId, tenant } = delivery;
  if (!store || typeof sent !== 'string') return 'unknown';
  const ordered = ordering && (event === 'article.sync' || event === 'article.trash');
  if (ordered && typeof articleId !== 'string') return 'unknown';
  // Tenant mode: the worker's claims are namespaced by the tenant, so these must be too.
  const deliveryId = tenantScoped(tenant, sent);
  const claim: DedupClaim = ordered
    ? { deliveryId, order: { articleId: tenantScoped(tenant, articleId!), timestamp } }
    : { deliveryId };
  try {
    const outcome = await store.claim(claim);
    if (outcome.state === 'done' || outcome.state === 'stale') return 'done';
    if (outcome.state === 'in-progress') return 'running';
    await store.release(claim, outcome.lease);
  } catch {
    // A store that cannot answer proves nothing: the message is dead-lettered with its reason.
  }
  return 'unknown';
}
