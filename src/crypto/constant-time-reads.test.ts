import { describe, expect, it } from 'vitest';
import { constantTimeEqual, constantTimeEqualAscii } from './constant-time.js';
import { nodeCryptoProvider } from './node-crypto.js';
import { webCryptoProvider } from './web-crypto.js';
import { TwoPassHmac, usableOneShotHash } from './two-pass-hmac.js';
import { loggedBytes, loggedText, range, type ReadLog, readsOf } from '../internal/read-log.js';

// Structural constant time: no clock. A comparison whose time does not depend on the data reads
// the same positions in the same order whatever the data, and reads every one of them, so the
// tests record its reads through instrumented inputs (src/internal/read-log.ts) and require one
// and the same record for a match, for a first difference at every position, and for no match.

const encoder = new TextEncoder();

/** `bytes` with the byte at `at` changed. */
function flipByte(bytes: Uint8Array, at: number): Uint8Array {
  const copy = bytes.slice();
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

/** `text` with the ASCII character at `at` changed to another ASCII character. */
function flipChar(text: string, at: number): string {
  return text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
}

describe('constantTimeEqual reads every byte of both sides, the same way wherever they differ', () => {
  const secret = encoder.encode('0123456789abcdef0123456789abcdef');

  function record(a: Uint8Array, b: Uint8Array): { equal: boolean; log: ReadLog } {
    const log: ReadLog = [];
    const equal = constantTimeEqual(loggedBytes(a, log, 'a'), loggedBytes(b, log, 'b'));
    return { equal, log };
  }

  it('for a match and for a first difference at each position', () => {
    const same = record(secret, secret.slice());
    expect(same.equal).toBe(true);
    expect(readsOf(same.log, 'a')).toEqual(range(0, secret.length));
    expect(readsOf(same.log, 'b')).toEqual(range(0, secret.length));
    for (let at = 0; at < secret.length; at++) {
      const differing = record(flipByte(secret, at), secret);
      expect(differing.equal, `difference at ${at}`).toBe(false);
      expect(differing.log, `difference at ${at}`).toEqual(same.log);
    }
  });

  it('for sides of different lengths: every position of the longer one, on both sides', () => {
    for (const other of [secret.subarray(0, 5), new Uint8Array(0), encoder.encode(`${'x'.repeat(40)}`)]) {
      const longest = Math.max(other.length, secret.length);
      for (const [a, b] of [
        [other, secret],
        [secret, other],
      ] as const) {
        const { equal, log } = record(a, b);
        expect(equal).toBe(false);
        expect(readsOf(log, 'a')).toEqual(range(0, longest));
        expect(readsOf(log, 'b')).toEqual(range(0, longest));
      }
    }
  });
});

describe('constantTimeEqualAscii reads every character and byte, the same way wherever they differ', () => {
  const token = 'tok_0123456789abcdefghijklmnopqrstuv';
  const bytes = encoder.encode(token);
  const header = `Bearer ${token}`;
  const start = 'Bearer '.length;

  function record(text: string, expected: Uint8Array): { equal: boolean | undefined; log: ReadLog } {
    const log: ReadLog = [];
    const equal = constantTimeEqualAscii(loggedText(text, log, 't'), start, loggedBytes(expected, log, 'b'));
    return { equal, log };
  }

  it('for a match and for a first difference at each position', () => {
    const same = record(header, bytes);
    expect(same.equal).toBe(true);
    expect(readsOf(same.log, 't')).toEqual(range(start, header.length));
    expect(readsOf(same.log, 'b')).toEqual(range(0, bytes.length));
    for (let at = start; at < header.length; at++) {
      const differing = record(flipChar(header, at), bytes);
      expect(differing.equal, `difference at ${at}`).toBe(false);
      expect(differing.log, `difference at ${at}`).toEqual(same.log);
    }
  });

  it('for a text shorter or longer than the bytes: every position of the longer one, on both sides', () => {
    for (const text of [header.slice(0, start + 3), header.slice(0, start), `${header}extra`]) {
      const longest = Math.max(text.length - start, bytes.length);
      const { equal, log } = record(text, bytes);
      expect(equal).toBe(false);
      expect(readsOf(log, 't')).toEqual(range(start, start + longest));
      expect(readsOf(log, 'b')).toEqual(range(0, longest));
    }
  });
});

describe('the signature comparison reads every byte of both digests, the same way wherever they differ', () => {
  const hash = usableOneShotHash(loadHash());
  const key = encoder.encode('whsec_signing-token');
  const prefix = '1767225600.';
  const body = encoder.encode('{"event":"article.published"}');

  function loadHash(): unknown {
    return (process as unknown as { getBuiltinModule(id: string): { hash?: unknown } }).getBuiltinModule('node:crypto')
      .hash;
  }

  /**
   * TwoPassHmac over a hash whose HMAC digest (`h1`) logs its reads. The inner digest stays a
   * real string: it is only copied into the outer block, by node:buffer's native writer where
   * there is one, which takes nothing but a string.
   */
  function record(expected: Uint8Array): { matched: boolean | undefined; log: ReadLog } {
    const log: ReadLog = [];
    let calls = 0;
    const hmac = new TwoPassHmac(hash!, key);
    const logged = new TwoPassHmac((algorithm, data, encoding) => {
      const digest = hash!(algorithm, data, encoding);
      return calls++ === 0 ? digest : loggedText(digest, log, 'h1');
    }, key);
    calls = 0;
    log.length = 0;
    const matched = logged.matches(prefix, body, loggedBytes(expected, log, 'e'));
    expect(matched).toBe(hmac.matches(prefix, body, expected));
    return { matched, log };
  }

  const signature = () => {
    const digest = new TwoPassHmac(hash!, key).digest(prefix, body)!;
    return Uint8Array.from(digest, (char) => char.charCodeAt(0));
  };

  it.runIf(hash)('in the two-pass HMAC, for a match and a first difference at each of the 32 positions', () => {
    const expected = signature();
    const same = record(expected);
    expect(same.matched).toBe(true);
    expect(readsOf(same.log, 'h1')).toEqual(range(0, 32));
    expect(readsOf(same.log, 'e')).toEqual(range(0, 32));
    for (let at = 0; at < 32; at++) {
      const differing = record(flipByte(expected, at));
      expect(differing.matched, `difference at ${at}`).toBe(false);
      expect(differing.log, `difference at ${at}`).toEqual(same.log);
    }
  });

  it.runIf(hash)('in the two-pass HMAC, for an expected value of another length: every position of the longer', () => {
    const expected = signature();
    for (const other of [expected.subarray(0, 31), Uint8Array.of(...expected, 0), new Uint8Array(0)]) {
      const longest = Math.max(other.length, 32);
      const { matched, log } = record(other);
      expect(matched).toBe(false);
      expect(readsOf(log, 'h1')).toEqual(range(0, longest));
      expect(readsOf(log, 'e')).toEqual(range(0, longest));
    }
  });

  it.runIf(hash)("through nodeCryptoProvider's verify for a small body", () => {
    const verifier = nodeCryptoProvider().hmacSha256('whsec_signing-token');
    const expected = signature();
    const logOf = (candidate: Uint8Array) => {
      const log: ReadLog = [];
      expect(verifier.verify(prefix, body, loggedBytes(candidate, log, 'e'))).toBe(candidate === expected);
      return log;
    };
    const same = logOf(expected);
    expect(readsOf(same, 'e')).toEqual(range(0, 32));
    for (let at = 0; at < 32; at++) expect(logOf(flipByte(expected, at)), `difference at ${at}`).toEqual(same);
  });
});

describe("webCryptoProvider's verify reads every byte of the expected HMAC, the same way wherever it differs", () => {
  const prefix = '1767225600.';
  const body = encoder.encode('{"event":"article.published"}');

  async function signature(): Promise<Uint8Array> {
    const key = await crypto.subtle.importKey(
      'raw',
      encoder.encode('whsec_signing-token'),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const message = Uint8Array.of(...encoder.encode(prefix), ...body);
    return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
  }

  it('for a match, a first difference at each of the 32 positions, and other lengths', async () => {
    const verifier = webCryptoProvider().hmacSha256('whsec_signing-token');
    const expected = await signature();
    const logOf = async (candidate: Uint8Array, matches: boolean) => {
      const log: ReadLog = [];
      expect(await verifier.verify(prefix, body, loggedBytes(candidate, log, 'e'))).toBe(matches);
      return log;
    };
    const same = await logOf(expected, true);
    expect(readsOf(same, 'e')).toEqual(range(0, 32));
    for (let at = 0; at < 32; at++)
      expect(await logOf(flipByte(expected, at), false), `difference at ${at}`).toEqual(same);
    for (const other of [expected.subarray(0, 16), Uint8Array.of(...expected, 0), new Uint8Array(0)]) {
      expect(readsOf(await logOf(other, false), 'e')).toEqual(range(0, Math.max(other.length, 32)));
    }
  });
});
