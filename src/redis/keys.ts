import type { DedupClaim } from 'webhook-cms-receiver';
import { storedId } from '../dedup/stored-ids.js';

/** The prefix every key starts with unless `keyPrefix` says otherwise. */
export const DEFAULT_KEY_PREFIX = 'webhook-cms:';

/**
 * The keys one script touches for a claim, all in one Redis Cluster hash slot:
 * - without ordering, the delivery's key alone: `<prefix>id:<deliveryId>`;
 * - with ordering, the delivery's key, the article's mark and the article's running lease,
 *   all under the hash tag `{a:<articleId>}`: `<prefix>{a:<articleId>}:id:<deliveryId>`,
 *   `…:mark` and `…:run`. The three share everything up to the tag's closing brace, so they
 *   hash alike whatever the ids contain.
 *
 * Ids are written as `storedId` gives them: any string works, and two never share a key.
 */
export type KeysOf = (claim: DedupClaim) => Promise<string[]>;

/**
 * Checks `keyPrefix` and returns the key layout for it.
 *
 * @example
 * ```ts
 * await keysFor('webhook-cms:')({ deliveryId: 'd1' }); // ['webhook-cms:id:d1']
 * ```
 */
export function keysFor(prefix: string): KeysOf {
  if (typeof prefix !== 'string') {
    throw new TypeError(`redisDedupStore: keyPrefix must be a string, got ${typeof prefix}.`);
  }
  // Redis hashes the whole key when its first `{` is followed at once by `}`: the article's
  // keys would then land in different slots and a Redis Cluster would refuse the scripts.
  const brace = prefix.indexOf('{');
  if (brace !== -1 && prefix[brace + 1] === '}') {
    throw new TypeError(
      `redisDedupStore: keyPrefix ${JSON.stringify(prefix)} starts an empty hash tag "{}", which would split an ` +
        'article\'s keys across Redis Cluster slots. Remove the braces, or put a name inside them ("{webhooks}:").',
    );
  }
  return async ({ deliveryId, order }) => {
    const delivery = await storedId(deliveryId);
    if (!order) return [`${prefix}id:${delivery}`];
    const article = `${prefix}{a:${await storedId(order.articleId, { forbidden: '}' })}}`;
    return [`${article}:id:${delivery}`, `${article}:mark`, `${article}:run`];
  };
}
