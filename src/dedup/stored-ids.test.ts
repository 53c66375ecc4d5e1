import { describe, expect, it } from 'vitest';
import { PLAIN_ID_MAX, storedClaim, storedId } from './stored-ids.js';

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
});
