import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { webCryptoProvider } from './web-crypto.js';

// CVE-2026-21713: Node's `subtle.verify` compared HMACs with an early exit before 20.20.2,
// 22.22.2 and 24.14.1. The provider must not depend on how a runtime's verify compares, so
// these tests hand it a Web Crypto whose verify is broken and watch it go unused.

const body = new TextEncoder().encode('{"event":"article.published"}');
const prefix = '1767225600.';
const signature = (secret: string) => new Uint8Array(createHmac('sha256', secret).update(prefix).update(body).digest());

/** The real `crypto.subtle`, except that `verify` says yes to anything and records its calls. */
function subtleWithCarelessVerify() {
  const real = globalThis.crypto.subtle;
  const verifyCalls: unknown[][] = [];
  const subtle = {
    importKey: real.importKey.bind(real),
    sign: real.sign.bind(real),
    verify: async (...args: unknown[]) => {
      verifyCalls.push(args);
      return true;
    },
  };
  vi.stubGlobal('crypto', { subtle });
  return { verifyCalls };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('webCryptoProvider compares the HMAC itself', () => {
  it("never calls the runtime's subtle.verify, whose comparison it cannot vouch for", async () => {
    const { verifyCalls } = subtleWithCarelessVerify();
    const verifier = webCryptoProvider().hmacSha256('whsec_signing-token');
    expect(await verifier.verify(prefix, body, signature('whsec_signing-token'))).toBe(true);
    expect(verifyCalls).toEqual([]);
  });

  it('refuses a wrong signature even where subtle.verify would accept it', async () => {
    subtleWithCarelessVerify();
    const verifier = webCryptoProvider().hmacSha256('whsec_signing-token');
    expect(await verifier.verify(prefix, body, signature('another-token'))).toBe(false);
    expect(await verifier.verify(prefix, body, new Uint8Array(32))).toBe(false);
  });

  it('imports the key once per token, for signing only', async () => {
    const real = globalThis.crypto.subtle;
    const importKey = vi.fn(real.importKey.bind(real));
    vi.stubGlobal('crypto', { subtle: { importKey, sign: real.sign.bind(real) } });
    const verifier = webCryptoProvider().hmacSha256('whsec_signing-token');
    await verifier.verify(prefix, body, signature('whsec_signing-token'));
    await verifier.verify(prefix, body, signature('whsec_signing-token'));
    expect(importKey).toHaveBeenCalledTimes(1);
    const [format, , algorithm, extractable, usages] = importKey.mock.calls[0]!;
    expect([format, algorithm, extractable, usages]).toEqual([
      'raw',
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    ]);
  });

  it('names itself webcrypto', () => {
    expect(webCryptoProvider().name).toBe('webcrypto');
  });

  it('takes raw key bytes that are not UTF-8 text: RFC 4231 test case 3', async () => {
    const key = new Uint8Array(20).fill(0xaa);
    const data = new Uint8Array(50).fill(0xdd);
    const expected = Uint8Array.from(
      Buffer.from('773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe', 'hex'),
    );
    expect(await webCryptoProvider().hmacSha256(key).verify('', data, expected)).toBe(true);
  });

  it("copies raw key bytes: the caller's array is neither read late nor wiped", async () => {
    const key = new Uint8Array(20).fill(0xaa);
    const verifier = webCryptoProvider().hmacSha256(key);
    key.fill(0x01);
    const data = new Uint8Array(50).fill(0xdd);
    const expected = Uint8Array.from(
      Buffer.from('773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe', 'hex'),
    );
    expect(await verifier.verify('', data, expected)).toBe(true);
    const mine = new Uint8Array(20).fill(0xaa);
    await webCryptoProvider().hmacSha256(mine).verify('', data, expected);
    expect(mine).toEqual(new Uint8Array(20).fill(0xaa));
  });

  it('hashes the prefix and then the body, each byte where it belongs', async () => {
    const verifier = webCryptoProvider().hmacSha256('whsec_signing-token');
    expect(await verifier.verify(prefix, body, signature('whsec_signing-token'))).toBe(true);
    // The same bytes cut elsewhere are the same message.
    const whole = new TextEncoder().encode(prefix + new TextDecoder().decode(body));
    expect(await verifier.verify('', whole, signature('whsec_signing-token'))).toBe(true);
    expect(await verifier.verify(`${prefix}{`, body.subarray(1), signature('whsec_signing-token'))).toBe(true);
  });

  it('says which API is missing on a runtime without Web Crypto', () => {
    vi.stubGlobal('crypto', undefined);
    expect(() => webCryptoProvider()).toThrow(
      'Web Crypto (globalThis.crypto.subtle) is not available on this runtime.',
    );
  });
});
