import {
  type DeleteItemCommandOutput,
  DeleteItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ClaimOutcome, DedupClaim, StoredAnswer } from 'webhook-cms-receiver';
import { errorName } from './calls.js';
import { type StoreContext, persisting } from './context.js';
import { answerOf, heldBy, type Item, NAMES, n, s, stringOf, ttlOf } from './items.js';
import { DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/** Absent, or past its expiry (a lapsed claim, a forgotten delivery): free to take. */
export const FREE = 'attribute_not_exists(#pk) OR #until <= :now';
/** Free, or still held by this lease. */
export const FREE_OR_MINE = `${FREE} OR (#state = :claimed AND #lease = :lease)`;

const names = (...used: (keyof typeof NAMES)[]) => Object.fromEntries(used.map((name) => [name, NAMES[name]]));

/** The claimed delivery item's attributes, beside its key. */
export function claimedItem(keyItem: Item, lease: string, until: number): Item {
  return { ...keyItem, state: s('c'), lease: s(lease), until: n(until), [DYNAMODB_TTL_ATTRIBUTE]: ttlOf(until) };
}

/**
 * What a claim that met an existing, live delivery item answers. `mine` is the lease of an
 * earlier claim of this process that got no answer (see UnansweredClaims).
 */
export function outcomeOfOld(old: Item | undefined, lease: string, mine?: string): ClaimOutcome {
  // Our own claim, written by an attempt whose answer was lost and sent again by the SDK.
  if (heldBy(old, lease)) return { state: 'claimed', lease };
  if (mine !== undefined && heldBy(old, mine)) return { state: 'claimed', lease: mine };
  if (old && stringOf(old, 'state') === 'd') return { state: 'done', answer: answerOf(old) };
  return { state: 'in-progress' };
}

/** A claim without ordering: one conditional PutItem that returns the live item when it fails. */
export async function claimPlain(context: StoreContext, claim: DedupClaim, lease: string): Promise<ClaimOutcome> {
  const { send, table, leaseMs, now } = context;
  const [{ delivery }] = await Promise.all([context.keysOf(claim), context.ready()]);
  const at = now();
  try {
    await send(
      'claim a delivery',
      new PutItemCommand({
        TableName: table,
        Item: claimedItem(delivery, lease, at + leaseMs),
        ConditionExpression: FREE,
        ExpressionAttributeNames: names('#pk', '#until'),
        ExpressionAttributeValues: { ':now': n(at) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { state: 'claimed', lease };
  } catch (error) {
    const deliveryKey = delivery.pk!.S!;
    if (errorName(error) !== 'ConditionalCheckFailedException') {
      context.unanswered.add(deliveryKey, lease);
      throw error;
    }
    return outcomeOfOld((error as { Item?: Item }).Item, lease, context.unanswered.take(deliveryKey));
  }
}

/** The update that holds a delivery for `lease` a lease longer, when it is free or already ours. */
export function holdUpdate(context: StoreContext, keyItem: Item, lease: string, at: number) {
  const until = at + context.leaseMs;
  return {
    TableName: context.table,
    Key: keyItem,
    UpdateExpression: 'SET #state = :claimed, #lease = :lease, #until = :until, #ttl = :ttl',
    ConditionExpression: FREE_OR_MINE,
    ExpressionAttributeNames: names('#pk', '#until', '#state', '#lease', '#ttl'),
    ExpressionAttributeValues: {
      ':now': n(at),
      ':claimed': s('c'),
      ':lease': s(lease),
      ':until': n(until),
      ':ttl': ttlOf(until),
    },
  };
}

/** The update that records a delivery done, when it is free or still held by `lease`. */
export function doneUpdate(context: StoreContext, keyItem: Item, lease: string, answer: StoredAnswer, at: number) {
  const until = at + context.retentionMs;
  return {
    TableName: context.table,
    Key: keyItem,
    UpdateExpression: 'SET #state = :done, #lease = :lease, #answer = :answer, #until = :until, #ttl = :ttl',
    ConditionExpression: FREE_OR_MINE,
    ExpressionAttributeNames: names('#pk', '#until', '#state', '#lease', '#answer', '#ttl'),
    ExpressionAttributeValues: {
      ':now': n(at),
      ':claimed': s('c'),
      ':done': s('d'),
      ':lease': s(lease),
      ':answer': s(JSON.stringify(answer)),
      ':until': n(until),
      ':ttl': ttlOf(until),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/** True when a failed "done" condition found the delivery already recorded by this very lease (a resent write). */
export function recordedByMe(old: Item | undefined, lease: string): boolean {
  return stringOf(old, 'state') === 'd' && stringOf(old, 'lease') === lease;
}

/** Extends the lease; false when another request holds or finished the delivery. */
export async function renewPlain(context: StoreContext, claim: DedupClaim, lease: string): Promise<boolean> {
  const { delivery } = await context.keysOf(claim);
  try {
    await context.send('renew a lease', new UpdateItemCommand(holdUpdate(context, delivery, lease, context.now())));
    return true;
  } catch (error) {
    if (errorName(error) === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Records the delivery done; false (never a throw) when another request took it over. A
 * transient failure is tried again for up to half a lease (see `persisting`).
 */
export async function completePlain(
  context: StoreContext,
  claim: DedupClaim,
  lease: string,
  answer: StoredAnswer,
): Promise<boolean> {
  const { delivery } = await context.keysOf(claim);
  return persisting(context.leaseMs / 2, async () => {
    try {
      const update = doneUpdate(context, delivery, lease, answer, context.now());
      await context.send('record a delivery', new UpdateItemCommand(update));
      return true;
    } catch (error) {
      if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
      return recordedByMe((error as { Item?: Item }).Item, lease);
    }
  });
}

/** The delete that frees a delivery item only while `lease` holds it. */
export function releaseDelete(context: StoreContext, keyItem: Item, lease: string) {
  return new DeleteItemCommand({
    TableName: context.table,
    Key: keyItem,
    ConditionExpression: '#state = :claimed AND #lease = :lease',
    ExpressionAttributeNames: names('#state', '#lease'),
    ExpressionAttributeValues: { ':claimed': s('c'), ':lease': s(lease) },
  });
}

/** Frees the delivery after a handler failure; nothing when the lease was lost. */
export async function releasePlain(context: StoreContext, claim: DedupClaim, lease: string): Promise<void> {
  const { delivery } = await context.keysOf(claim);
  await ignoreLost(context.send<DeleteItemCommandOutput>('release a claim', releaseDelete(context, delivery, lease)));
}

/** Swallows the failed condition of a release: the lease was lost, and the other request's claim stays. */
export async function ignoreLost(sent: Promise<unknown>): Promise<void> {
  try {
    await sent;
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
  }
}

export { names };
