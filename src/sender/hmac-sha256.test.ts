import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sha256 } from './hmac-sha256.js';

describe('the plain-JavaScript SHA-256 and HMAC', () => {
  it.each([0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 70_000])('matches node:crypto on %i random bytes', (size) => {
    const data = new Uint8Array(randomBytes(size));
    expect(Buffer.from(sha256(data)).toString('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    for (const keySize of [0, 16, 64, 65, 200]) {
      const key = new Uint8Array(randomBytes(keySize));
      expect(Buffer.from(hmacSha256(key, data)).toString('hex')).toBe(
        createHmac('sha256', key).update(data).digest('hex'),
      );
    }
  });
});
