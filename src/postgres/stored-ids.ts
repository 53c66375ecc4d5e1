import type { DedupClaim } from '../dedup/store.js';

/**
 * How a delivery id or an article id is written into the `id` and `article_id` columns.
 *
 * Postgres `text` cannot hold U+0000, its btree index refuses a row over about 2.7 kB, and
 * every client sends strings as UTF-8, which turns each lone surrogate into U+FFFD: stored
 * as given, '\uD800', '\uDC00' and '\uFFFD' would be one row. So:
 *
 * - an id of at most {@link PLAIN_ID_MAX} UTF-16 code units, well-formed, without U+0000 and
 *   not starting with U+0001 is stored exactly as given (every id the service sends today:
 *   existing rows keep matching);
 * - any other id is stored as U+0001, `sha256:` and the SHA-256 (hex) of its UTF-16 code
 *   units, which no id of the first kind can be, and which tell any two strings apart.
 *
 * Two distinct ids therefore never share a row.
 */
export const PLAIN_ID_MAX = 512;

const MARK = '\u0001';
// A high surrogate without its low half, or a low surrogate without its high half.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the id is stored as given. */
export function isPlainId(id: string): boolean {
  return id.length <= PLAIN_ID_MAX && !id.startsWith(MARK) && !id.includes('\u0000') && !LONE_SURROGATE.test(id);
}

/** The column value for an id; see {@link PLAIN_ID_MAX} for the rule. */
export async function storedId(id: string): Promise<string> {
  if (isPlainId(id)) return id;
  // Every code unit as two bytes, low byte first: one byte string per JS string, lone
  // surrogates included, which UTF-8 could not give.
  const units = new Uint8Array(id.length * 2);
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    units[2 * i] = unit & 0xff;
    units[2 * i + 1] = unit >> 8;
  }
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', units));
  return `${MARK}sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The claim with its ids as the tables hold them. */
export async function storedClaim(claim: DedupClaim): Promise<DedupClaim> {
  const deliveryId = await storedId(claim.deliveryId);
  if (!claim.order) return deliveryId === claim.deliveryId ? claim : { deliveryId };
  const articleId = await storedId(claim.order.articleId);
  return { deliveryId, order: { articleId, timestamp: claim.order.timestamp } };
}
