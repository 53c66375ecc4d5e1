import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HexComparing } from './hex.js';

// hex.ts builds its digit table as the module loads. Each test here loads the module afresh,
// so the table is built inside the test (a mutation run counts the table as this file's to
// check), and checks every digit of both cases, an invalid one, and each answer of the compare.

let hex: typeof import('./hex.js');
beforeEach(async () => {
  vi.resetModules();
  hex = await import('./hex.js');
});

const DIGITS = '0123456789abcdefABCDEF';
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

describe('the hex digit table, as the module builds it', () => {
  it('decodes every digit of either case and refuses every other ASCII character', () => {
    for (const digit of DIGITS) {
      const bytes = hex.decodeSha256Hex(digit.repeat(64));
      const value = Number.parseInt(digit, 16);
      expect(bytes?.[0], digit).toBe(value * 16 + value);
    }
    for (let code = 0; code < 128; code++) {
      const char = String.fromCharCode(code);
      if (DIGITS.includes(char)) continue;
      expect(hex.decodeSha256Hex(`${char}${'0'.repeat(63)}`), `code ${code}`).toBeUndefined();
    }
  });

  it('compares 64 hex digits of either case with a digest: 0 equal, 1 different, -1 not hex', () => {
    expect(hex.NOT_HEX).toBe(-1);
    const digest = new Uint8Array(32).map((_, i) => i * 8 + 1);
    const text = Buffer.from(digest).toString('hex');
    expect(hex.compareHexDigest(latin1(digest), text, 0)).toBe(0);
    expect(hex.compareHexDigest(latin1(digest), text.toUpperCase(), 0)).toBe(0);
    expect(hex.compareHexDigest(latin1(digest), `sha256=${text}`, 7)).toBe(0);
    const other = `${text.slice(0, 63)}${text[63] === '0' ? '1' : '0'}`;
    expect(hex.compareHexDigest(latin1(digest), other, 0)).toBe(1);
    expect(hex.compareHexDigest(latin1(digest), `${text.slice(0, 63)}g`, 0)).toBe(-1);
    expect(hex.compareHexDigest(latin1(digest), `${text.slice(0, 63)}\u00e9`, 0)).toBe(-1);
    // All digits zero: valid hex, so a different digest is 1, not -1.
    expect(hex.compareHexDigest(latin1(digest), '0'.repeat(64), 0)).toBe(1);
    expect(hex.compareHexDigest('\0'.repeat(32), '0'.repeat(64), 0)).toBe(0);
  });

  it('answers by the length alone: -1 for text not 64 digits, 1 for a digest not 32 characters', () => {
    const text = 'ab'.repeat(32);
    expect(hex.compareHexDigest('x'.repeat(32), text.slice(1), 0)).toBe(-1);
    expect(hex.compareHexDigest('x'.repeat(31), text, 0)).toBe(1);
    expect(hex.compareHexDigest('x'.repeat(31), `sha256=${text}`, 7)).toBe(1);
    expect(hex.compareHexDigest('x'.repeat(31), `sha256=${text}`, 0)).toBe(-1);
  });
});

describe("the Node provider's verifyHex", () => {
  const secret = 'whsec_hex';
  const prefix = '1767225600.';
  const body = new TextEncoder().encode('{"event":"test"}');
  const signature = createHmac('sha256', secret).update(prefix).update(body).digest('hex');

  it('compares the signature text itself for a small body, and leaves a large one to verify', async () => {
    const { nodeCryptoProvider } = await import('./node-crypto.js');
    const verifier = nodeCryptoProvider().hmacSha256(secret) as ReturnType<
      ReturnType<typeof nodeCryptoProvider>['hmacSha256']
    > &
      HexComparing;
    expect(verifier.verifyHex?.(prefix, body, `sha256=${signature}`, 7)).toBe(0);
    expect(verifier.verifyHex?.(prefix, body, `sha256=${signature.toUpperCase()}`, 7)).toBe(0);
    expect(verifier.verifyHex?.(prefix, body, `sha256=${'0'.repeat(64)}`, 7)).toBe(1);
    expect(verifier.verifyHex?.(prefix, body, `sha256=${'z'.repeat(64)}`, 7)).toBe(-1);
    expect(verifier.verifyHex?.(prefix, new Uint8Array(64 * 1024 + 1), `sha256=${signature}`, 7)).toBeUndefined();
  });
});
