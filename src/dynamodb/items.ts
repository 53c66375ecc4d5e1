import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DedupClaim, StoredAnswer } from 'webhook-cms-receiver';
import { storedClaim } from '../dedup/stored-ids.js';
import { DYNAMODB_PARTITION_KEY, DYNAMODB_SORT_KEY, DYNAMODB_TTL_ATTRIBUTE } from './table-input.js';

/** A DynamoDB item or key, as the low-level client reads and writes it. */
export type Item = Record<string, AttributeValue>;

/**
 * The store's items, one table, all keys strings:
 * - a delivery: `pk = <prefix>d#<delivery id>`, `sk = delivery`; `state` is `c` while claimed
 *   (`lease` holds it until `until`) and `d` once done (`answer`, kept until `until`);
 * - with ordering, an article's mark `pk = <prefix>a#<article id>`, `sk = mark` (`newest`
 *   applied envelope timestamp, valid until `until`) and the one delivery running for it,
 *   `sk = run` (`lease` until `until`), as Redis keeps them in two keys;
 * - kept requests: see kept-store.ts.
 *
 * `until` is the expiry in epoch milliseconds that every read and condition checks (DynamoDB's
 * TTL deletes late); the TTL attribute holds the same moment in whole seconds, rounded up.
 * Ids are written as `storedId` gives them, so any string works and two never share a key.
 */
export const NAMES = {
  '#pk': DYNAMODB_PARTITION_KEY,
  '#state': 'state',
  '#lease': 'lease',
  '#until': 'until',
  '#answer': 'answer',
  '#ttl': DYNAMODB_TTL_ATTRIBUTE,
  '#newest': 'newest',
} as const;

/** The keys a claim's items live at. */
export interface ClaimKeys {
  delivery: Item;
  /** With ordering only. */
  mark?: Item;
  run?: Item;
}

/** Checks `keyPrefix` and returns the key layout for it. */
export function keysFor(prefix: string): (claim: DedupClaim) => Promise<ClaimKeys> {
  // Leaves room within DynamoDB's 2,048-byte partition key for the longest stored id (512
  // UTF-16 code units, at most 1,536 bytes of UTF-8).
  if (typeof prefix !== 'string' || new TextEncoder().encode(prefix).byteLength > 256) {
    throw new TypeError(
      `dynamoDbDedupStore: keyPrefix must be a string of at most 256 bytes, got ${typeof prefix === 'string' ? `${prefix.length} characters` : typeof prefix}.`,
    );
  }
  return async (claim) => {
    const { deliveryId, order } = await storedClaim(claim);
    const delivery = key(`${prefix}d#${deliveryId}`, 'delivery');
    if (!order) return { delivery };
    const article = `${prefix}a#${order.articleId}`;
    return { delivery, mark: key(article, 'mark'), run: key(article, 'run') };
  };
}

/** A key of the table. */
export function key(pk: string, sk: string): Item {
  return { [DYNAMODB_PARTITION_KEY]: { S: pk }, [DYNAMODB_SORT_KEY]: { S: sk } };
}

/** A number attribute. */
export const n = (value: number): AttributeValue => ({ N: String(value) });
/** A string attribute. */
export const s = (value: string): AttributeValue => ({ S: value });

/** The TTL attribute's value for an expiry in epoch ms: whole seconds, never before the expiry. */
export const ttlOf = (untilMs: number): AttributeValue => n(Math.ceil(untilMs / 1000));

/** Reads a number attribute; undefined when absent. */
export function numberOf(item: Item | undefined, name: string): number | undefined {
  const value = item?.[name]?.N;
  return value === undefined ? undefined : Number(value);
}

/** Reads a string attribute; undefined when absent. */
export function stringOf(item: Item | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}

/** True when the item exists and has not expired at `now`: DynamoDB's TTL deletes late, so every read checks. */
export function isLive(item: Item | undefined, now: number): item is Item {
  const until = numberOf(item, 'until');
  return item !== undefined && until !== undefined && until > now;
}

/** The answer a done delivery item holds. */
export function answerOf(item: Item): StoredAnswer {
  return JSON.parse(stringOf(item, 'answer') ?? '{"ok":true}') as StoredAnswer;
}

/** True when the item is a live claim held by `lease`. */
export function heldBy(item: Item | undefined, lease: string): boolean {
  return stringOf(item, 'state') === 'c' && stringOf(item, 'lease') === lease;
}
