import {
  type CancellationReason,
  DeleteItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { type ClaimOutcome, type DedupClaim, STALE_ANSWER, type StoredAnswer } from 'webhook-cms-receiver';
import { errorName } from './calls.js';
import { CONFLICT_ATTEMPTS, conflictPause, persisting, type StoreContext } from './context.js';
import { type ClaimKeys, type Item, n, numberOf, s, ttlOf } from './items.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';
import {
  claimedItem,
  doneUpdate,
  FREE,
  holdUpdate,
  ignoreLost,
  names,
  outcomeOfOld,
  recordedByMe,
  releaseDelete,
} from './plain-steps.js';

// Ordering: each step is one TransactWriteItems over the delivery, the article's mark and the
// article's running lease, so a check and the writes that depend on it never interleave with
// another request's, as one Lua script does on Redis.

type Reasons = (CancellationReason | undefined)[];

/** Sends a transaction; undefined when it committed, else the cancellation reasons, one per item. */
async function transact(context: StoreContext, step: string, items: TransactWriteItem[]): Promise<Reasons | undefined> {
  try {
    await context.send(step, new TransactWriteItemsCommand({ TransactItems: items }));
    return undefined;
  } catch (error) {
    if (errorName(error) !== 'TransactionCanceledException') throw error;
    const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
    // Without reasons nothing says why: another request wins the benefit of the doubt.
    return reasons ?? items.map(() => ({ Code: 'TransactionConflict' }));
  }
}

const failed = (reason: CancellationReason | undefined) => reason?.Code === 'ConditionalCheckFailed';
const conflicted = (reasons: Reasons) => reasons.some((reason) => reason?.Code === 'TransactionConflict');

/** The article's running lease, held for `lease` when it is free or already ours. */
function runHold(context: StoreContext, run: Item, lease: string, at: number): TransactWriteItem {
  const until = at + context.leaseMs;
  return {
    Update: {
      TableName: context.table,
      Key: run,
      UpdateExpression: 'SET #lease = :lease, #until = :until, #ttl = :ttl',
      ConditionExpression: `${FREE} OR #lease = :lease`,
      ExpressionAttributeNames: names('#pk', '#until', '#lease', '#ttl'),
      ExpressionAttributeValues: { ':now': n(at), ':lease': s(lease), ':until': n(until), ':ttl': ttlOf(until) },
    },
  };
}

/**
 * A claim with ordering, one transaction: the delivery is free, the article's mark is not
 * newer than this delivery, and no other delivery runs for the article. The reasons of a
 * cancelled transaction carry the items that failed, so a duplicate's answer and the newer
 * timestamp of a stale delivery need no read; a stale delivery is then recorded done (a
 * second call, as it is rare).
 */
export async function claimOrdered(context: StoreContext, claim: DedupClaim, lease: string): Promise<ClaimOutcome> {
  const { table, leaseMs, now } = context;
  const [{ delivery, mark, run }] = await Promise.all([context.keysOf(claim), context.ready()]);
  const at = now();
  const timestamp = claim.order!.timestamp;
  const until = at + leaseMs;
  const deliveryKey = delivery.pk!.S!;
  const reasons = await transact(context, 'claim a delivery', [
    {
      Put: {
        TableName: table,
        Item: claimedItem(delivery, lease, until),
        ConditionExpression: FREE,
        ExpressionAttributeNames: names('#pk', '#until'),
        ExpressionAttributeValues: { ':now': n(at) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      ConditionCheck: {
        TableName: table,
        Key: mark!,
        ConditionExpression: `${FREE} OR #newest <= :timestamp`,
        ExpressionAttributeNames: names('#pk', '#until', '#newest'),
        ExpressionAttributeValues: { ':now': n(at), ':timestamp': n(timestamp) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Put: {
        TableName: table,
        Item: { ...run!, lease: s(lease), until: n(until), [DYNAMODB_TTL_ATTRIBUTE]: ttlOf(until) },
        ConditionExpression: FREE,
        ExpressionAttributeNames: names('#pk', '#until'),
        ExpressionAttributeValues: { ':now': n(at) },
      },
    },
  ]).catch((error: unknown) => {
    context.unanswered.add(deliveryKey, lease);
    throw error;
  });
  if (!reasons) return { state: 'claimed', lease };
  // The article's running lease is taken with the delivery, so a claim of ours holds both.
  if (failed(reasons[0])) {
    return outcomeOfOld(reasons[0]!.Item as Item | undefined, lease, context.unanswered.take(deliveryKey));
  }
  const newest = numberOf(reasons[1]?.Item as Item | undefined, 'newest');
  if (failed(reasons[1]) && newest !== undefined) return recordStale(context, delivery, lease, newest);
  return { state: 'in-progress' };
}

/** Records a stale delivery done as `{ ok: true, stale: true }`, unless a copy got there first. */
async function recordStale(
  context: StoreContext,
  delivery: Item,
  lease: string,
  newest: number,
): Promise<ClaimOutcome> {
  const at = context.now();
  const until = at + context.retentionMs;
  try {
    await context.send(
      'record a stale delivery',
      new PutItemCommand({
        TableName: context.table,
        Item: {
          ...delivery,
          state: s('d'),
          lease: s(lease),
          answer: s(JSON.stringify(STALE_ANSWER)),
          until: n(until),
          [DYNAMODB_TTL_ATTRIBUTE]: ttlOf(until),
        },
        ConditionExpression: FREE,
        ExpressionAttributeNames: names('#pk', '#until'),
        ExpressionAttributeValues: { ':now': n(at) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { state: 'stale', newerTimestamp: newest };
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    const outcome = outcomeOfOld((error as { Item?: Item }).Item, lease);
    return outcome.state === 'claimed' ? { state: 'stale', newerTimestamp: newest } : outcome;
  }
}

/** Extends the delivery's and the article's lease together; false when another request holds either. */
export async function renewOrdered(context: StoreContext, claim: DedupClaim, lease: string): Promise<boolean> {
  const { delivery, run } = await context.keysOf(claim);
  for (let attempt = 1; ; attempt++) {
    const at = context.now();
    const reasons = await transact(context, 'renew a lease', [
      { Update: holdUpdate(context, delivery, lease, at) },
      runHold(context, run!, lease, at),
    ]);
    if (!reasons) return true;
    if (reasons.some(failed) || !conflicted(reasons) || attempt >= CONFLICT_ATTEMPTS) return false;
    await conflictPause();
  }
}

/**
 * Records the delivery done, raises the article's mark (never lowers it: a newer mark only
 * has its retention refreshed) and frees the article if this lease still runs it. The first
 * attempt assumes the usual case; a cancelled one says which assumption failed, and the next
 * attempt adjusts. False, writing nothing, when another request holds or finished the delivery.
 */
export async function completeOrdered(
  context: StoreContext,
  claim: DedupClaim,
  lease: string,
  answer: StoredAnswer,
): Promise<boolean> {
  const keys = await context.keysOf(claim);
  const timestamp = claim.order!.timestamp;
  return persisting(context.leaseMs / 2, async () => {
    let raise = true;
    let holdsRun = true;
    for (let attempt = 1; ; attempt++) {
      const at = context.now();
      const reasons = await transact(context, 'record a delivery', [
        { Update: doneUpdate(context, keys.delivery, lease, answer, at) },
        markUpdate(context, keys, timestamp, raise, at),
        ...(holdsRun ? [runFree(context, keys.run!, lease)] : []),
      ]);
      if (!reasons) return true;
      if (failed(reasons[0])) return recordedByMe(reasons[0]!.Item as Item | undefined, lease);
      if (failed(reasons[1])) raise = !raise;
      if (holdsRun && failed(reasons[2])) holdsRun = false;
      if (attempt >= CONFLICT_ATTEMPTS * 2)
        throw new Error('dynamoDbDedupStore: the article kept changing while recording');
      if (conflicted(reasons)) await conflictPause();
    }
  });
}

/** Raises the mark to `timestamp` (when it is older, or forgotten), or refreshes a newer mark's retention. */
function markUpdate(context: StoreContext, keys: ClaimKeys, timestamp: number, raise: boolean, at: number) {
  const until = at + context.retentionMs;
  return {
    Update: {
      TableName: context.table,
      Key: keys.mark!,
      UpdateExpression: raise
        ? 'SET #newest = :timestamp, #until = :until, #ttl = :ttl'
        : 'SET #until = :until, #ttl = :ttl',
      ConditionExpression: raise ? `${FREE} OR #newest <= :timestamp` : '#until > :now AND #newest > :timestamp',
      ExpressionAttributeNames: raise ? names('#pk', '#until', '#newest', '#ttl') : names('#until', '#newest', '#ttl'),
      ExpressionAttributeValues: {
        ':now': n(at),
        ':timestamp': n(timestamp),
        ':until': n(until),
        ':ttl': ttlOf(until),
      },
    },
  } satisfies TransactWriteItem;
}

function runFree(context: StoreContext, run: Item, lease: string): TransactWriteItem {
  return {
    Delete: {
      TableName: context.table,
      Key: run,
      ConditionExpression: '#lease = :lease',
      ExpressionAttributeNames: names('#lease'),
      ExpressionAttributeValues: { ':lease': s(lease) },
    },
  };
}

/** Frees the delivery and the article, each only while this lease holds it. */
export async function releaseOrdered(context: StoreContext, claim: DedupClaim, lease: string): Promise<void> {
  const { delivery, run } = await context.keysOf(claim);
  const freeRun = runFree(context, run!, lease).Delete!;
  await Promise.all([
    ignoreLost(context.send('release a claim', releaseDelete(context, delivery, lease))),
    ignoreLost(context.send('release an article', new DeleteItemCommand(freeRun))),
  ]);
}
