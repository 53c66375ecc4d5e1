import type { ClaimOutcome, DedupClaim, StoredAnswer, TransactOutcome } from 'webhook-cms-receiver';
import { decideClaim } from './claim-rows.js';
import type { Query, Row } from './database.js';
import type { StoreSettings } from './store-settings.js';
import { explainPostgresError, isLockConflict } from './postgres-errors.js';
import { storedClaim } from '../dedup/stored-ids.js';
import { transactionStatements } from './transaction-statements.js';

/** How long a claim waits for a copy of its delivery (or a delivery for its article) in flight before answering in-progress. */
export const IN_FLIGHT_WAIT_MS = 1000;

/** Carries an outcome out of the transaction by throwing, so that the transaction rolls back. */
class Settled {
  constructor(readonly outcome: TransactOutcome) {}
}

/**
 * Transactional mode's `transact`: BEGIN; claim the delivery (its row stays locked by this
 * transaction); run `work` with the transaction; record the answer; COMMIT. The handler's
 * writes through `tx` and the done row commit together or not at all: a throw rolls back,
 * and a killed process's connection closes, which rolls back too.
 */
export function transactFor(settings: StoreSettings) {
  const { db, tables, leaseMs, retentionMs, ready, sweeper } = settings;
  const sql = transactionStatements(tables);
  const wait = `${IN_FLIGHT_WAIT_MS}ms`;

  const claimIn = async (query: Query, { deliveryId, order }: DedupClaim, lease: string): Promise<ClaimOutcome> => {
    let rows: Row[];
    try {
      rows = order
        ? await query(
            sql.claimOrdered,
            [deliveryId, lease, leaseMs, wait, order.articleId, order.timestamp, retentionMs],
            true,
          )
        : await query(sql.claim, [deliveryId, lease, leaseMs, wait], true);
    } catch (error) {
      if (isLockConflict(error)) throw new Settled({ state: 'in-progress' });
      throw explainPostgresError(error, tables, 'claim a delivery');
    }
    return decideClaim(rows, lease).outcome;
  };

  const recordIn = async (query: Query, { deliveryId, order }: DedupClaim, lease: string, answer: StoredAnswer) => {
    const json = JSON.stringify(answer);
    let rows: Row[];
    try {
      rows = order
        ? await query(sql.recordOrdered, [deliveryId, lease, json, retentionMs, order.articleId, order.timestamp], true)
        : await query(sql.record, [deliveryId, lease, json, retentionMs], true);
    } catch (error) {
      throw explainPostgresError(error, tables, 'record a delivery');
    }
    if (rows.length === 0) {
      throw new Error(
        `postgresDedupStore: the row of delivery ${JSON.stringify(deliveryId)} vanished inside its own transaction; nothing was ` +
          "committed. Does something else delete this store's rows?",
      );
    }
  };

  return async (given: DedupClaim, work: (tx: unknown) => Promise<StoredAnswer>): Promise<TransactOutcome> => {
    await ready();
    // Ids as the tables hold them: any string works, and two never share a row.
    const claim = await storedClaim(given);
    const lease = globalThis.crypto.randomUUID();
    // Before the transaction, not in it: its deletes would stay locked until the handler's
    // commit, and a single connection (a pg Client, PGlite) cannot run it beside the
    // transaction. A failing sweep fails this delivery (503) with nothing claimed.
    await sweeper.due();
    try {
      return await db.transaction(async (query, tx): Promise<TransactOutcome> => {
        const outcome = await claimIn(query, claim, lease);
        // A stale delivery is recorded done by the claim itself: commit that, run nothing.
        if (outcome.state === 'stale') return outcome;
        // Done or in flight elsewhere: roll back the no-op writes and row locks the claim took.
        if (outcome.state !== 'claimed') throw new Settled(outcome);
        const answer = await work(tx);
        await recordIn(query, claim, lease, answer);
        return { state: 'committed', answer };
      });
    } catch (error) {
      if (error instanceof Settled) return error.outcome;
      throw error;
    }
  };
}
