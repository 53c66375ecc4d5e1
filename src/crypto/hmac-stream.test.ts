import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeCryptoProvider } from './node-crypto.js';
import type { CryptoProvider, HmacVerifier } from './provider.js';
import { webCryptoProvider } from './web-crypto.js';

const hmac = (secret: string, prefix: string, body: Uint8Array) =>
  new Uint8Array(createHmac('sha256', secret).update(prefix).update(body).digest());

/** `body` cut at the given offsets, as a socket might deliver it. */
function cut(body: Uint8Array, offsets: number[]): Uint8Array[] {
  const edges = [0, ...offsets.filter((at) => at > 0 && at < body.length).sort((a, b) => a - b), body.length];
  return edges.slice(1).map((end, i) => body.subarray(edges[i], end));
}

function streamed(verifier: HmacVerifier, prefix: string, chunks: Uint8Array[], expected: Uint8Array): boolean {
  const stream = verifier.stream!(prefix);
  for (const chunk of chunks) stream.update(chunk);
  return stream.matches(expected);
}

// One suite for every provider: those that stream must agree with their own one-shot verify.
describe.each([
  ['node:crypto', nodeCryptoProvider(), true],
  ['webcrypto', webCryptoProvider(), false],
] as [string, CryptoProvider, boolean][])('streaming with the %s provider', (_name, provider, streams) => {
  const verifier = provider.hmacSha256('s3cret');

  it(streams ? 'can hash a body while it streams in' : 'offers no stream: subtle cannot hash incrementally', () => {
    expect(typeof verifier.stream === 'function').toBe(streams);
  });

  it.skipIf(!streams).each([0, 1, 63, 64, 65, 1024, 256 * 1024 + 7])(
    'agrees with the one-shot verify over a %i-byte body cut into uneven chunks',
    async (size) => {
      const body = new Uint8Array(randomBytes(size));
      const expected = hmac('s3cret', '1763800000.', body);
      const splits = [[], [1], [size >> 1], [3, 64, 65, 1000, size - 1], Array.from({ length: 40 }, (_, i) => i * 97)];
      for (const offsets of splits) {
        expect(streamed(verifier, '1763800000.', cut(body, offsets), expected)).toBe(true);
      }
      expect(await verifier.verify('1763800000.', body, expected)).toBe(true);
    },
  );

  it.skipIf(!streams)('gives the known answer of RFC 4231 test case 2 when fed in pieces', () => {
    const jefe = provider.hmacSha256('Jefe');
    const pieces = ['ya ', 'want for', ' nothing?'].map((text) => new TextEncoder().encode(text));
    const expected = new Uint8Array(
      Buffer.from('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843', 'hex'),
    );
    expect(streamed(jefe, 'what do ', pieces, expected)).toBe(true);
  });

  it.skipIf(!streams)('refuses chunks out of order, a missing chunk, another prefix or another secret', () => {
    const body = new Uint8Array(randomBytes(300));
    const expected = hmac('s3cret', '1.', body);
    const [a, b, c] = cut(body, [100, 200]);
    expect(streamed(verifier, '1.', [a!, c!, b!], expected)).toBe(false);
    expect(streamed(verifier, '1.', [a!, b!], expected)).toBe(false);
    expect(streamed(verifier, '2.', [a!, b!, c!], expected)).toBe(false);
    expect(streamed(provider.hmacSha256('other'), '1.', [a!, b!, c!], expected)).toBe(false);
    expect(streamed(verifier, '1.', [a!, b!, c!], expected)).toBe(true);
  });

  it.skipIf(!streams)('refuses an expected value of the wrong length instead of throwing', () => {
    const body = new Uint8Array(randomBytes(10));
    expect(streamed(verifier, '1.', [body], hmac('s3cret', '1.', body).subarray(0, 31))).toBe(false);
  });

  it.skipIf(!streams)('keeps concurrent streams of one verifier apart', () => {
    const [x, y] = [new Uint8Array(randomBytes(50)), new Uint8Array(randomBytes(50))];
    const first = verifier.stream!('1.');
    const second = verifier.stream!('1.');
    first.update(x);
    second.update(y);
    expect(second.matches(hmac('s3cret', '1.', y))).toBe(true);
    expect(first.matches(hmac('s3cret', '1.', x))).toBe(true);
  });
});
