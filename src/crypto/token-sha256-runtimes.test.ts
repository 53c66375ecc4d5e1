import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The token hash as other runtimes give it, forced under Node by making loadBuiltin hand over an
// altered node:crypto (as node-crypto-runtimes.test.ts does for the HMAC): the hash tenants are
// looked up by must be the same SHA-256 whichever path computes it, and a one-shot `hash` that
// answers wrongly must never be trusted, or every tenant lookup would miss.

type NodeCryptoModule = typeof import('node:crypto');
const builtin = (id: string) => (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule(id);
const real = builtin('node:crypto') as NodeCryptoModule;
const reference = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const tokens = ['whk_0123456789abcdef', 'é😀 token with non-ASCII', 'a'];

async function hashingWith(crypto: Record<string, unknown> | undefined) {
  vi.resetModules();
  vi.doMock('../internal/builtin.js', () => ({
    loadBuiltin: (id: string) => (id === 'node:crypto' ? crypto : builtin(id)),
  }));
  return import('./token-sha256.js');
}

afterEach(() => {
  vi.doUnmock('../internal/builtin.js');
  vi.resetModules();
});

/** A node:crypto whose methods count their calls and check they are called on the module. */
function counted(overrides: Record<string, unknown> = {}) {
  const calls = { hash: 0, createHash: 0 };
  const crypto: Record<string, unknown> = {
    hash(this: unknown, algorithm: string, data: string, encoding: string) {
      expect(this).toBe(crypto);
      calls.hash++;
      return real.hash(algorithm, data, encoding as 'hex');
    },
    createHash(this: unknown, algorithm: string) {
      expect(this).toBe(crypto);
      calls.createHash++;
      return real.createHash(algorithm);
    },
    ...overrides,
  };
  return { crypto, calls };
}

describe('tokenSha256Hex on every runtime shape', () => {
  it('uses the one-shot hash, on the module, when it gives the known answer', async () => {
    const { crypto, calls } = counted();
    const { tokenSha256Hex } = await hashingWith(crypto);
    for (const token of tokens) expect(tokenSha256Hex(token)).toBe(reference(token));
    // One call checks the known answer, then one per token; createHash is never needed.
    expect(calls).toEqual({ hash: 1 + tokens.length, createHash: 0 });
  });

  it.each([
    ['without crypto.hash', { hash: undefined }],
    ['with a crypto.hash that is not a function', { hash: 'sha256' }],
    ['with a crypto.hash that gives another answer', { hash: () => 'f'.repeat(64) }],
    ['with a crypto.hash that hashes something else', { hash: (_: string, data: string) => reference(`${data}.`) }],
    [
      'with a crypto.hash that throws',
      {
        hash: () => {
          throw new Error('not here');
        },
      },
    ],
  ])('falls back to createHash %s, synchronously and with the same hex', async (_, overrides) => {
    const { crypto, calls } = counted(overrides);
    const { tokenSha256Hex } = await hashingWith(crypto);
    for (const token of tokens) {
      const hash = tokenSha256Hex(token);
      expect(typeof hash).toBe('string');
      expect(hash).toBe(reference(token));
    }
    expect(calls.createHash).toBe(tokens.length);
  });

  it.each([
    ['without node:crypto', undefined],
    ['with a node:crypto that has neither hash nor createHash', {}],
  ])('answers through Web Crypto %s, with the same hex', async (_, crypto) => {
    const { tokenSha256Hex } = await hashingWith(crypto);
    for (const token of tokens) {
      const hash = tokenSha256Hex(token);
      expect(hash).toBeInstanceOf(Promise);
      expect(await hash).toBe(reference(token));
    }
  });

  it('looks node:crypto up once, however many tokens it hashes', async () => {
    const { crypto } = counted();
    let loads = 0;
    vi.resetModules();
    vi.doMock('../internal/builtin.js', () => ({
      loadBuiltin: (id: string) => {
        loads++;
        return id === 'node:crypto' ? crypto : builtin(id);
      },
    }));
    const { tokenSha256Hex } = await import('./token-sha256.js');
    for (const token of tokens) tokenSha256Hex(token);
    expect(loads).toBe(1);
  });
});

describe('keyTokenSha256Hex: once per prepared key', () => {
  it('hashes a key object once, and each key object on its own', async () => {
    const { crypto, calls } = counted();
    const { keyTokenSha256Hex } = await hashingWith(crypto);
    const first = { token: tokens[0]! };
    const second = { token: tokens[1]! };
    expect(keyTokenSha256Hex(first)).toBe(reference(first.token));
    const afterFirst = calls.hash;
    expect(keyTokenSha256Hex(first)).toBe(reference(first.token));
    expect(calls.hash).toBe(afterFirst);
    expect(keyTokenSha256Hex(second)).toBe(reference(second.token));
    expect(calls.hash).toBe(afterFirst + 1);
  });

  it('keeps the promise of a Web Crypto hash, so a key is hashed once there too', async () => {
    const digest = vi.spyOn(crypto.subtle, 'digest');
    try {
      const { keyTokenSha256Hex } = await hashingWith(undefined);
      const key = { token: tokens[0]! };
      const first = keyTokenSha256Hex(key);
      expect(keyTokenSha256Hex(key)).toBe(first);
      expect(await first).toBe(reference(key.token));
      expect(digest).toHaveBeenCalledTimes(1);
    } finally {
      digest.mockRestore();
    }
  });
});

describe('webSha256Hex', () => {
  it('writes every byte as two lower-case hex digits, leading zeros kept', async () => {
    const { webSha256Hex } = await hashingWith(undefined);
    // SHA-256 of 'abc' has a byte under 0x10 (ba7816bf8f01...), which needs its leading zero.
    for (const token of [...tokens, 'abc', '', 'x'.repeat(300)]) {
      const hex = await webSha256Hex(new TextEncoder().encode(token));
      expect(hex).toMatch(/^[0-9a-f]{64}$/);
      expect(hex).toBe(reference(token));
    }
  });
});
