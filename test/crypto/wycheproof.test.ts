import { nodeCryptoProvider, webCryptoProvider } from 'webhook-cms-receiver';
import { describe, expect, it } from 'vitest';
import { checkWycheproofVector, WYCHEPROOF_CHECKS, wycheproofVectors } from '../runtimes/wycheproof-checks.mjs';

// Wycheproof's HMAC-SHA256 vectors (test/fixtures/wycheproof): keys of 16, 32 and 65 bytes
// (past SHA-256's 64-byte block, so hashed first), messages of 0 to 255 bytes, and tags with
// bits flipped, zeroed or set. The same checks run on Bun, Deno and workerd in `npm run test:runtimes`.
const vectors = wycheproofVectors();

describe.each([
  ['webcrypto', webCryptoProvider()],
  ['node:crypto', nodeCryptoProvider()],
])('the %s provider gives Wycheproof HMAC-SHA256 answers', (_name, provider) => {
  it.each(vectors.map((vector) => [vector.tcId, vector.tagSize, vector.result, vector.comment, vector] as const))(
    'tcId %i (%i-bit tag, %s): %s',
    async (_tcId, _tagSize, _result, _comment, vector) => {
      await checkWycheproofVector(provider, vector);
    },
  );
});

describe('the vectors cover what the issue asks for', () => {
  it('keys shorter than, equal to and longer than the hash block, empty and long messages, flipped and truncated tags', () => {
    expect(new Set(vectors.map((vector) => vector.key.length))).toEqual(new Set([16, 32, 65]));
    const lengths = vectors.map((vector) => vector.msg.length);
    expect(Math.min(...lengths)).toBe(0);
    expect(Math.max(...lengths)).toBeGreaterThan(128);
    expect(vectors.filter((vector) => vector.flags.includes('ModifiedTag')).every((v) => v.result === 'invalid')).toBe(
      true,
    );
    expect(vectors.filter((vector) => vector.tagSize === 128 && vector.result === 'valid').length).toBeGreaterThan(30);
    expect(vectors).toHaveLength(174);
  });
});

describe('the checks themselves', () => {
  it('catch a provider that accepts a truncated tag, or any tag', async () => {
    const careless = {
      name: 'careless',
      hmacSha256: () => ({ verify: () => true }),
    };
    const truncated = vectors.find((vector) => vector.tagSize === 128 && vector.result === 'valid')!;
    await expect(checkWycheproofVector(careless, truncated)).rejects.toThrow('verify of the truncated tag');
    const flipped = vectors.find((vector) => vector.tagSize === 256 && vector.result === 'invalid')!;
    await expect(checkWycheproofVector(careless, flipped)).rejects.toThrow('verify: expected false, got true');
  });

  it('run as one named check per provider for the runtime matrix', async () => {
    expect(Object.keys(WYCHEPROOF_CHECKS)).toEqual([
      'wycheproof HMAC-SHA256 (174 vectors): webcrypto',
      'wycheproof HMAC-SHA256 (174 vectors): node:crypto',
    ]);
    for (const check of Object.values(WYCHEPROOF_CHECKS)) await check();
  });
});
