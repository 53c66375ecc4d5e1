import type { ClaimOutcome, DedupClaim, StoredAnswer } from 'webhook-cms-receiver';

/**
 * Sent with every call and every reply, so a store and an object from different releases of
 * this package (a Worker deployed while an old object still runs) refuse each other clearly.
 */
export const PROTOCOL_VERSION = 1;

/** The store operations the object serves, one per `DedupStore` method. */
export type LedgerOp = 'claim' | 'renew' | 'complete' | 'release';

/** One store call, as the body of the POST the store sends to the object. */
export interface LedgerRequest {
  v: typeof PROTOCOL_VERSION;
  op: LedgerOp;
  claim: DedupClaim;
  /** The claim's lease: every operation but `claim`. */
  lease?: string;
  /** What `complete` records. */
  answer?: StoredAnswer;
  /** The store's options travel with each call: the object has no configuration of its own. */
  leaseMs: number;
  retentionMs: number;
}

/** What an operation returns: `claim` an outcome, `renew` and `complete` whether they held, `release` null. */
export type LedgerResult = ClaimOutcome | boolean | null;

/** The object's reply: a result, or why it refused the call. */
export type LedgerReply = { v: typeof PROTOCOL_VERSION; result: LedgerResult } | { v: number; error: string };

const OPS: readonly string[] = ['claim', 'renew', 'complete', 'release'];

/**
 * The object a claim belongs to: the article's when ordering applies, so the stale check and
 * the one-delivery-per-article rule run in the one object that sees every delivery for it;
 * otherwise one object per delivery id, so unrelated deliveries never queue behind each other.
 */
export function objectNameOf(claim: DedupClaim): string {
  return claim.order ? `article:${claim.order.articleId}` : `delivery:${claim.deliveryId}`;
}

/** Checks a call's body; throws a TypeError naming the first field that is wrong. */
export function parseLedgerRequest(value: unknown): LedgerRequest {
  const body = value as Partial<LedgerRequest> | null;
  if (typeof body !== 'object' || body === null) throw new TypeError('the body is not a JSON object');
  if (body.v !== PROTOCOL_VERSION) {
    throw new TypeError(
      `protocol version ${String(body.v)} is not ${PROTOCOL_VERSION}: the Worker and its WebhookDedupObject come ` +
        'from different versions of webhook-cms-receiver; deploy them together',
    );
  }
  if (typeof body.op !== 'string' || !OPS.includes(body.op)) throw new TypeError(`unknown op ${String(body.op)}`);
  const claim = parseClaim(body.claim);
  if (body.op !== 'claim' && typeof body.lease !== 'string') throw new TypeError(`${body.op} needs a lease`);
  if (body.op === 'complete' && (typeof body.answer !== 'object' || body.answer?.ok !== true))
    throw new TypeError('complete needs an answer with ok: true');
  if (!isPositive(body.leaseMs) || !isPositive(body.retentionMs))
    throw new TypeError('leaseMs and retentionMs must be positive numbers');
  return { ...(body as LedgerRequest), claim };
}

function parseClaim(value: unknown): DedupClaim {
  const claim = value as Partial<DedupClaim> | null;
  if (typeof claim?.deliveryId !== 'string' || claim.deliveryId === '')
    throw new TypeError('the claim has no deliveryId');
  const order = claim.order;
  if (order === undefined) return { deliveryId: claim.deliveryId };
  if (typeof order?.articleId !== 'string' || !Number.isFinite(order.timestamp))
    throw new TypeError('the claim has an order without an articleId and a finite timestamp');
  return { deliveryId: claim.deliveryId, order: { articleId: order.articleId, timestamp: order.timestamp } };
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value);
}
