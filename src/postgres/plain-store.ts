import type { ClaimOutcome, DedupClaim, DedupStore, StoredAnswer } from 'webhook-cms-receiver';
import { batched } from './batch.js';
import { decideClaim } from './claim-rows.js';
import type { Row } from './database.js';
import { plainStatements } from './plain-statements.js';
import { explainPostgresError, refusedByServer } from './postgres-errors.js';
import { storedClaim } from '../dedup/stored-ids.js';
import type { StoreSettings } from './store-settings.js';

/**
 * Plain mode: the semantics of the memory and Redis stores, one statement per step, so a
 * delivery costs two statements on the happy path (claim, complete; shared by every delivery
 * of the same turn without ordering) plus a renewal per third of the lease while a slow
 * handler runs. Leases and retention run on the database's clock.
 * Ids are written as `storedId` gives them, so any string works and two never share a row.
 */
export function plainStore(settings: StoreSettings): DedupStore {
  const { db, tables, leaseMs, retentionMs, ready, sweeper } = settings;
  const sql = plainStatements(tables);
  const run = async (step: string, text: string, params: readonly unknown[]): Promise<Row[]> => {
    await ready();
    try {
      return await db.query(text, params, true);
    } catch (error) {
      throw explainPostgresError(error, tables, step);
    }
  };

  // Claims and completions without ordering share statements (batch.ts); a statement the
  // database refused wrote nothing, so its items are sent again one each and only the faulty
  // one fails.
  const claimInTurn = batched<{ id: string; lease: string }, Row[]>({
    key: (item) => item.id,
    alone: refusedByServer,
    run: async (items) => {
      const rows = await run('claim', sql.claimBatch, [JSON.stringify(items), leaseMs]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return items.map((item) => {
        const row = byId.get(item.id);
        return row ? [row] : [];
      });
    },
  });
  const completeInTurn = batched<{ id: string; lease: string; answer: StoredAnswer }, boolean>({
    key: (item) => item.id,
    alone: refusedByServer,
    run: async (items) => {
      const rows = await run('record a delivery', sql.completeBatch, [JSON.stringify(items), retentionMs]);
      const recorded = new Set(rows.map((row) => row.id));
      return items.map((item) => recorded.has(item.id));
    },
  });

  let sweepError: unknown;
  const withSweepError = (outcome: ClaimOutcome): ClaimOutcome => {
    if (outcome.state !== 'claimed' || sweepError === undefined) return outcome;
    const warning = sweepError as Error;
    sweepError = undefined;
    return { ...outcome, warning };
  };

  return {
    leaseMs,
    ordering: true,
    async claim(claim: DedupClaim) {
      const { deliveryId, order } = await storedClaim(claim);
      // Random, so two processes can never hold the same lease.
      const lease = globalThis.crypto.randomUUID();
      // The sweep runs beside the claim (on a pool, on another connection) and never fails
      // the delivery: its error reaches onError with this claim, or the next one that claims.
      const sweeping = sweeper.due()?.catch((error: unknown) => {
        sweepError = error;
      });
      const rows = order
        ? await run('claim', sql.claimOrdered, [
            deliveryId,
            lease,
            leaseMs,
            retentionMs,
            order.articleId,
            order.timestamp,
          ])
        : await claimInTurn({ id: deliveryId, lease });
      const { outcome, strayArticleHold } = decideClaim(rows, lease);
      if (strayArticleHold && order) await run('claim', sql.releaseArticle, [order.articleId, lease]);
      await sweeping;
      return withSweepError(outcome);
    },
    async renew(claim, lease) {
      const { deliveryId, order } = await storedClaim(claim);
      const rows = order
        ? await run('renew a lease', sql.renewOrdered, [deliveryId, lease, leaseMs, order.articleId])
        : await run('renew a lease', sql.renew, [deliveryId, lease, leaseMs]);
      return rows.length > 0;
    },
    async complete(claim, lease, answer) {
      const { deliveryId, order } = await storedClaim(claim);
      if (!order) return completeInTurn({ id: deliveryId, lease, answer });
      const rows = await run('record a delivery', sql.completeOrdered, [
        deliveryId,
        lease,
        JSON.stringify(answer),
        retentionMs,
        order.articleId,
        order.timestamp,
      ]);
      return rows.length > 0;
    },
    async release(claim, lease) {
      const { deliveryId, order } = await storedClaim(claim);
      if (order) await run('release a claim', sql.releaseOrdered, [deliveryId, lease, order.articleId]);
      else await run('release a claim', sql.release, [deliveryId, lease]);
    },
  };
}
