/**
 * How a delivery id or an article id is written into a key.
 *
 * Both clients send strings as UTF-8, which turns each lone surrogate into U+FFFD: written as
 * given, '\uD800', '\uDC00' and '\uFFFD' would be one key. And an article id is written
 * inside the hash tag `{a:<articleId>}`, which ends at its first `}`: an article id holding
 * `}:id:` could name another article's delivery key. So:
 *
 * - an id of at most {@link PLAIN_ID_MAX} UTF-16 code units, well-formed, without U+0000,
 *   not starting with U+0001 (and, for an article id, without `}`) is written exactly as
 *   given (every id the service sends today: existing keys keep matching);
 * - any other id is written as U+0001, `sha256:` and the SHA-256 (hex) of its UTF-16 code
 *   units, which no id of the first kind can be, and which tell any two strings apart.
 *
 * Two distinct ids therefore never share a key. (The same rule as the Postgres store's.)
 */
export const PLAIN_ID_MAX = 512;

const MARK = '\u0001';
// A high surrogate without its low half, or a low surrogate without its high half.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The key part for an id; `inTag` for an article id, written inside a hash tag. */
export async function storedId(id: string, inTag = false): Promise<string> {
  if (
    id.length <= PLAIN_ID_MAX &&
    !id.startsWith(MARK) &&
    !id.includes('\u0000') &&
    !LONE_SURROGATE.test(id) &&
    !(inTag && id.includes('}'))
  ) {
    return id;
  }
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
