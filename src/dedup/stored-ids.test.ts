import { describe, expect, it } from 'vitest';
import { isPlainId, PLAIN_ID_MAX, storedClaim, storedId } from './stored-ids.js';

// U+0001, then the hash.
const HASHED = new RegExp(`^${String.fromCharCode(1)}sha256:[0-9a-f]{64}$`);

describe('storedId (postgres)', () => {
  it('keeps well-formed ids without NUL up to PLAIN_ID_MAX code units as they are, so existing rows match', async () => {
    for (const id of ['3f2b6c1e-0d4a-4c7e-9a51-6b0f1c2d3e4f', 'a', 'é😀', '}{:', 'x'.repeat(PLAIN_ID_MAX)]) {
      expect(await storedId(id)).toBe(id);
    }
  });

  it('hashes NUL, lone surrogates, long ids and ids starting with U+0001, each to its own value', async () => {
    const odd = [
      '\u0000',
      'a\u0000',
      '\uD800',
      '\uDC00',
      '\uDC00\uD800',
      'x'.repeat(PLAIN_ID_MAX + 1),
      '\u0001',
      '\u0001a',
    ];
    const stored = await Promise.all(odd.map((id) => storedId(id)));
    for (const value of stored) expect(value).toMatch(HASHED);
    expect(new Set(stored).size).toBe(odd.length);
    // U+FFFD, what UTF-8 makes of a lone surrogate, is an ordinary id.
    expect(await storedId('\uFFFD')).toBe('\uFFFD');
  });

  it("never lets a plain id equal another id's hashed form: that form is hashed again", async () => {
    const hashed = await storedId('\uD800');
    expect(await storedId(hashed)).not.toBe(hashed);
    expect(await storedId(hashed)).toMatch(HASHED);
  });

  it('rewrites both ids of a claim and keeps its timestamp', async () => {
    const claim = { deliveryId: '\uD800', order: { articleId: 'a\u0000', timestamp: 7 } };
    expect(await storedClaim(claim)).toEqual({
      deliveryId: await storedId('\uD800'),
      order: { articleId: await storedId('a\u0000'), timestamp: 7 },
    });
    const plain = { deliveryId: 'd1' };
    expect(await storedClaim(plain)).toBe(plain);
  });

  it('hashes an id holding a character the store forbids in that place, and keeps the others', async () => {
    expect(isPlainId('a}b', { forbidden: '}' })).toBe(false);
    expect(isPlainId('a{b', { forbidden: '}' })).toBe(true);
    expect(isPlainId('a}b', { forbidden: '' })).toBe(true);
    expect(await storedId('a}b', { forbidden: '}' })).toMatch(HASHED);
  });

  it('gives back the same claim when nothing changes, and a new one when either id is rewritten', async () => {
    const same = { deliveryId: 'd1', order: { articleId: 'a1', timestamp: 3 } };
    expect(await storedClaim(same)).toBe(same);
    const long = { deliveryId: 'x'.repeat(PLAIN_ID_MAX + 1) };
    expect(await storedClaim(long)).toEqual({ deliveryId: await storedId(long.deliveryId) });
    const oddDelivery = { deliveryId: '\u0000', order: { articleId: 'a1', timestamp: 3 } };
    expect(await storedClaim(oddDelivery)).toEqual({
      deliveryId: await storedId('\u0000'),
      order: { articleId: 'a1', timestamp: 3 },
    });
    const tagged = { deliveryId: 'd1', order: { articleId: 'a}1', timestamp: 3 } };
    const stored = await storedClaim(tagged, { articleId: { forbidden: '}' } });
    expect(stored).toEqual({
      deliveryId: 'd1',
      order: { articleId: await storedId('a}1', { forbidden: '}' }), timestamp: 3 },
    });
    expect(stored.order!.articleId).toMatch(HASHED);
  });
});
