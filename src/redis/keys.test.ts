import { describe, expect, it } from 'vitest';
import { keysFor } from './keys.js';
import { PLAIN_ID_MAX, storedId } from '../dedup/stored-ids.js';

// U+0001, then the hash.
const HASHED = new RegExp(`^${String.fromCharCode(1)}sha256:[0-9a-f]{64}$`);

describe('storedId (redis)', () => {
  it('keeps well-formed ids without NUL up to PLAIN_ID_MAX code units as they are, so existing keys match', async () => {
    for (const id of ['3f2b6c1e-0d4a-4c7e-9a51-6b0f1c2d3e4f', 'a', 'é😀', 'q}:mark', 'x'.repeat(PLAIN_ID_MAX)]) {
      expect(await storedId(id)).toBe(id);
    }
    expect(await keysFor('p:')({ deliveryId: 'd1', order: { articleId: 'a1', timestamp: 1 } })).toEqual([
      'p:{a:a1}:id:d1',
      'p:{a:a1}:mark',
      'p:{a:a1}:run',
    ]);
  });

  it('hashes NUL, lone surrogates, long ids and ids starting with U+0001, each to its own value', async () => {
    const odd = ['\u0000', '\uD800', '\uDC00', '\uDC00\uD800', 'x'.repeat(PLAIN_ID_MAX + 1), '\u0001', '\u0001a'];
    const stored = await Promise.all(odd.map((id) => storedId(id)));
    for (const value of stored) expect(value).toMatch(HASHED);
    expect(new Set(stored).size).toBe(odd.length);
    expect(await storedId(stored[1]!)).not.toBe(stored[1]);
  });

  it('hashes an article id holding "}", which would end its hash tag early', async () => {
    expect(await storedId('p}:id:q', { forbidden: '}' })).toMatch(HASHED);
    const [delivery] = await keysFor('')({ deliveryId: 'q}:mark', order: { articleId: 'p', timestamp: 1 } });
    const [, mark] = await keysFor('')({ deliveryId: 'd', order: { articleId: 'p}:id:q', timestamp: 1 } });
    expect(delivery).not.toBe(mark);
  });
});
