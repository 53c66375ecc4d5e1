import { type DedupClaim, type DedupStore, tenantScoped } from 'webhook-cms-receiver';
import type { SqsEnvelope } from './message.js';

/**
 * What the dedup store says of a message whose S3 body is missing: `done` when its delivery
 * completed (a copy SQS delivered again after the run that deleted the body), `running` while
 * another copy holds it, `unknown` otherwise (no store, no delivery id, or never run), for
 * which the caller dead-letters. Claims exactly as the worker would have, so the answer comes
 * from the same record, ordering included; a claim it gets is released at once. (The same
 * rule as the Cloudflare consumer's, for its R2 bodies.)
 */
export async function settledBefore(
  envelope: SqsEnvelope,
  store: DedupStore | undefined,
  ordering: boolean,
): Promise<'done' | 'running' | 'unknown'> {
  const { deliveryId: sent, event, timestamp, articleId, tenant } = envelope;
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
