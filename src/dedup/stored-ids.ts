import { utf16Sha256Hex } from '../internal/utf16-sha256.js';
import type { DedupClaim } from './store.js';

/**
 * How a shared store writes a delivery id or an article id into a row, key or object name.
 *
 * Postgres `text` cannot hold U+0000 and its btree index refuses a row over about 2.7 kB;
 * every client sends strings as UTF-8, which turns each lone surrogate into U+FFFD (stored as
 * given, '\uD800', '\uDC00' and '\uFFFD' would be one row or key); a Redis article id sits in
 * the hash tag `{a:<articleId>}`, which ends at its first `}`; Durable Object storage keys are
 * limited to 2 KiB. So:
 *
 * - an id of at most {@link PLAIN_ID_MAX} UTF-16 code units, well-formed, without U+0000, not
 *   starting with U+0001 and without any of the store's `forbidden` characters is written
 *   exactly as given (every id the service sends today: existing rows and keys keep matching);
 * - any other id is written as U+0001, `sha256:` and the SHA-256 (hex) of its UTF-16 code
 *   units, which no id of the first kind can be, and which tells any two strings apart.
 *
 * Two distinct ids therefore never share a row or key.
 */
export const PLAIN_ID_MAX = 512;

const MARK = '\u0001';
// A high surrogate without its low half, or a low surrogate without its high half.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Options of {@link storedId}. */
export interface StoredIdOptions {
  /** Characters the store cannot hold as given in this place (Redis: `}` in a hash tag). */
  forbidden?: string;
}

/** True when the id is written as given. */
export function isPlainId(id: string, options: StoredIdOptions = {}): boolean {
  if (id.length > PLAIN_ID_MAX || id.startsWith(MARK) || id.includes('\u0000') || LONE_SURROGATE.test(id)) return false;
  const { forbidden } = options;
  if (!forbidden) return true;
  for (const character of forbidden) if (id.includes(character)) return false;
  return true;
}

/**
 * The stored form of an id; see {@link PLAIN_ID_MAX} for the rule. Synchronous for the ids the
 * service sends, so the common path costs no promise turn.
 */
export function storedId(id: string, options: StoredIdOptions = {}): string | Promise<string> {
  return isPlainId(id, options) ? id : hashedId(id);
}

async function hashedId(id: string): Promise<string> {
  return `${MARK}sha256:${await utf16Sha256Hex(id)}`;
}

/** The claim with its ids as the store holds them (the same claim when nothing changes). */
export async function storedClaim(
  claim: DedupClaim,
  options: { articleId?: StoredIdOptions } = {},
): Promise<DedupClaim> {
  const deliveryId = await storedId(claim.deliveryId);
  if (!claim.order) return deliveryId === claim.deliveryId ? claim : { deliveryId };
  const articleId = await storedId(claim.order.articleId, options.articleId);
  if (deliveryId === claim.deliveryId && articleId === claim.order.articleId) return claim;
  return { deliveryId, order: { articleId, timestamp: claim.order.timestamp } };
}
