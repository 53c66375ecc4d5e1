import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time.js';
import { defaultCryptoProvider } from './default-provider.js';
import { decodeSha256Hex } from './hex.js';
import { nodeCryptoProvider } from './node-crypto.js';
import { webCryptoProvider } from './web-crypto.js';

const encodeHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const hmac = (secret: string, prefix: string, body: Uint8Array) =>
  new Uint8Array(createHmac('sha256', secret).update(prefix).update(body).digest());

describe.each([
  ['node:crypto', nodeCryptoProvider()],
  ['webcrypto', webCryptoProvider()],
])('the %s provider', (name, provider) => {
  it('names itself', () => expect(provider.name).toBe(name));

  it.each([0, 1, 63, 64, 65, 1024, 256 * 1024])(
    'accepts the right HMAC over prefix and a %i-byte body',
    async (size) => {
      const body = new Uint8Array(randomBytes(size));
      const verifier = provider.hmacSha256('s3cret');
      expect(await verifier.verify('1763800000.', body, hmac('s3cret', '1763800000.', body))).toBe(true);
    },
  );

  it('refuses an HMAC made with another secret, another prefix or another body', async () => {
    const body = new TextEncoder().encode('{"event":"test"}');
    const verifier = provider.hmacSha256('s3cret');
    expect(await verifier.verify('1.', body, hmac('other', '1.', body))).toBe(false);
    expect(await verifier.verify('1.', body, hmac('s3cret', '2.', body))).toBe(false);
    expect(await verifier.verify('1.', body, hmac('s3cret', '1.', body.subarray(1)))).toBe(false);
  });

  it('keys with the UTF-8 bytes of a non-ASCII secret', async () => {
    const body = new TextEncoder().encode('{}');
    expect(await provider.hmacSha256('clé-🔑').verify('1.', body, hmac('clé-🔑', '1.', body))).toBe(true);
  });

  it('gives the known answer of RFC 4231 test case 2', async () => {
    const verifier = provider.hmacSha256('Jefe');
    const body = new TextEncoder().encode('ya want for nothing?');
    expect(await verifier.verify('what do ', body, RFC4231_CASE_2)).toBe(true);
  });

  it('refuses an expected value of the wrong length instead of throwing', async () => {
    const body = new TextEncoder().encode('{}');
    expect(await provider.hmacSha256('s3cret').verify('1.', body, hmac('s3cret', '1.', body).subarray(1))).toBe(false);
  });
});

// HMAC-SHA256("Jefe", "what do ya want for nothing?"), from RFC 4231 section 4.3.
const RFC4231_CASE_2 = new Uint8Array(
  Buffer.from('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843', 'hex'),
);

describe('defaultCryptoProvider', () => {
  it('picks node:crypto on Node, where it is faster', () => expect(defaultCryptoProvider().name).toBe('node:crypto'));
});

describe('constantTimeEqual', () => {
  it.each([
    ['equal bytes', [1, 2, 3], [1, 2, 3], true],
    ['a differing last byte', [1, 2, 3], [1, 2, 4], false],
    ['a differing first byte', [0, 2, 3], [1, 2, 3], false],
    ['a prefix', [1, 2], [1, 2, 3], false],
    ['two empty arrays', [], [], true],
    ['zero bytes against nothing', [0], [], false],
  ])('compares %s', (_what, a, b, expected) => {
    expect(constantTimeEqual(new Uint8Array(a), new Uint8Array(b))).toBe(expected);
  });
});

describe('hex', () => {
  it('round-trips 32 bytes in either case', () => {
    const bytes = new Uint8Array(randomBytes(32));
    expect(decodeSha256Hex(encodeHex(bytes))).toEqual(bytes);
    expect(decodeSha256Hex(encodeHex(bytes).toUpperCase())).toEqual(bytes);
  });

  it.each([
    '',
    'a'.repeat(63),
    'a'.repeat(65),
    `${'a'.repeat(63)}g`,
    `${'a'.repeat(63)}:`,
    `${'a'.repeat(63)}@`,
    `${'a'.repeat(63)}G`,
  ])('refuses %j', (text) => {
    expect(decodeSha256Hex(text)).toBeUndefined();
  });
});
