import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tokenSha256Hex, webSha256Hex } from './token-sha256.js';

const tokens = ['whk_0123456789abcdef', 'é😀 token with non-ASCII', 'a', 'x'.repeat(512)];
const reference = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

describe('tokenSha256Hex: what tenants are looked up by', () => {
  it('is the SHA-256 of the UTF-8 bytes, lower-case hex, synchronously on Node', () => {
    for (const token of tokens) {
      const hash = tokenSha256Hex(token);
      expect(typeof hash).toBe('string');
      expect(hash).toBe(reference(token));
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('gives the same hex through Web Crypto, where node:crypto is missing', async () => {
    const encoder = new TextEncoder();
    for (const token of tokens) expect(await webSha256Hex(encoder.encode(token))).toBe(reference(token));
  });
});
