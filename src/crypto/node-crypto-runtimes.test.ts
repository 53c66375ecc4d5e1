import { createHmac, type timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HexComparing } from './hex.js';
import type { CryptoProvider } from './provider.js';

// node:crypto as other runtimes have it, forced under Node by making loadBuiltin hand over an
// altered copy: without a usable one-shot `hash` (Node before 20.12, runtimes whose emulation
// lacks it or gets it wrong), every body goes through createHmac; and a spy on timingSafeEqual
// shows that path compares every digest in full, whichever byte differs.

type NodeCryptoModule = typeof import('node:crypto');
const real = (process as unknown as { getBuiltinModule(id: string): NodeCryptoModule }).getBuiltinModule('node:crypto');

async function providerWith(crypto: Record<string, unknown>): Promise<CryptoProvider> {
  vi.resetModules();
  vi.doMock('../internal/builtin.js', () => ({
    loadBuiltin: (id: string) =>
      id === 'node:crypto'
        ? crypto
        : (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule(id),
  }));
  return (await import('./node-crypto.js')).nodeCryptoProvider();
}

afterEach(() => {
  vi.doUnmock('../internal/builtin.js');
  vi.resetModules();
});

const secret = 'whsec_runtime-matrix';
const prefix = '1767225600.';
const small = new TextEncoder().encode('{"event":"article.published"}');
const large = new Uint8Array(65 * 1024 + 1).fill(0x61);
const sign = (body: Uint8Array) => new Uint8Array(createHmac('sha256', secret).update(prefix).update(body).digest());

describe.each([
  ['without crypto.hash', { ...real, hash: undefined }],
  ['with a crypto.hash that is not a function', { ...real, hash: 'sha256' }],
  ['with a crypto.hash that gives another answer', { ...real, hash: () => 'x'.repeat(32) }],
  [
    'with a crypto.hash that throws',
    {
      ...real,
      hash: () => {
        throw new Error('not here');
      },
    },
  ],
  ['without createSecretKey either', { ...real, hash: undefined, createSecretKey: undefined }],
])('nodeCryptoProvider %s', (_, crypto) => {
  it('verifies small and large bodies through createHmac, and refuses a wrong signature', async () => {
    const verifier = (await providerWith(crypto)).hmacSha256(secret);
    for (const body of [small, large]) {
      const expected = sign(body);
      expect(verifier.verify(prefix, body, expected)).toBe(true);
      const wrong = expected.slice();
      wrong[31] = wrong[31]! ^ 1;
      expect(verifier.verify(prefix, body, wrong)).toBe(false);
      expect(verifier.verify(prefix, body, expected.subarray(0, 31))).toBe(false);
    }
  });

  it('has no hex fast path: verifyHex answers undefined, so the caller decodes and calls verify', async () => {
    const verifier = (await providerWith(crypto)).hmacSha256(secret) as HexComparing;
    const text = `sha256=${Buffer.from(sign(small)).toString('hex')}`;
    expect(verifier.verifyHex?.(prefix, small, text, 7)).toBeUndefined();
  });

  it('streams a body to the same verdict', async () => {
    const stream = (await providerWith(crypto)).hmacSha256(secret).stream!(prefix);
    stream.update(small.subarray(0, 5));
    stream.update(small.subarray(5));
    expect(stream.matches(sign(small))).toBe(true);
  });
});

describe('the createHmac path compares digests with timingSafeEqual, in full, wherever they differ', () => {
  it('for a body too large for the two-pass HMAC and for a streamed one', async () => {
    const compare = vi.fn<typeof timingSafeEqual>((a, b) => real.timingSafeEqual(a, b));
    const provider = await providerWith({ ...real, timingSafeEqual: compare });
    const verifier = provider.hmacSha256(secret);
    const expected = sign(large);
    for (let at = -1; at < 32; at++) {
      const candidate = expected.slice();
      if (at >= 0) candidate[at] = candidate[at]! ^ 1;
      compare.mockClear();
      expect(verifier.verify(prefix, large, candidate)).toBe(at < 0);
      const stream = verifier.stream!(prefix);
      stream.update(large);
      expect(stream.matches(candidate)).toBe(at < 0);
      expect(compare).toHaveBeenCalledTimes(2);
      for (const [digest, given] of compare.mock.calls) {
        expect(digest.byteLength).toBe(32);
        expect(given).toBe(candidate);
      }
    }
  });
});

describe.each([
  ['as Node has it', real],
  ['without crypto.hash', { ...real, hash: undefined }],
  ['without createSecretKey either', { ...real, hash: undefined, createSecretKey: undefined }],
])('nodeCryptoProvider %s, given raw key bytes', (_, crypto) => {
  // RFC 4231 test case 3: a key that is not UTF-8 text.
  type RawKeyed = ReturnType<typeof import('./node-crypto.js')['nodeCryptoProvider']>;
  const rawKeyed = async () => (await providerWith(crypto)) as RawKeyed;
  const rawKey = () => new Uint8Array(20).fill(0xaa);
  const signRaw = (body: Uint8Array) =>
    new Uint8Array(createHmac('sha256', Buffer.from(rawKey())).update(prefix).update(body).digest());

  it('gives the known answer of RFC 4231 test case 3', async () => {
    const data = new Uint8Array(50).fill(0xdd);
    const expected = Buffer.from('773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe', 'hex');
    expect((await rawKeyed()).hmacSha256(rawKey()).verify('', data, new Uint8Array(expected))).toBe(true);
  });

  it("copies the bytes: the caller's array is neither read late nor wiped", async () => {
    const key = rawKey();
    const verifier = (await rawKeyed()).hmacSha256(key);
    expect(key).toEqual(rawKey());
    key.fill(0x01);
    for (const body of [small, large]) {
      expect(verifier.verify(prefix, body, signRaw(body))).toBe(true);
      const stream = verifier.stream!(prefix);
      stream.update(body);
      expect(stream.matches(signRaw(body))).toBe(true);
    }
  });
});
