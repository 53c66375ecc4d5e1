import { createHmac, hash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeCryptoProvider } from './node-crypto.js';
import {
  latin1Writer,
  type OneShotHash,
  TWO_PASS_MAX_BODY_BYTES,
  TwoPassHmac,
  usableOneShotHash,
  writeDigest,
  writeLatin1,
} from './two-pass-hmac.js';

const oneShot = hash as unknown as OneShotHash;
/** Hex of a digest: node:crypto's bytes, or the latin1 string (a byte per character) TwoPassHmac gives. */
const hex = (digest: Uint8Array | string | undefined) =>
  (typeof digest === 'string' ? Buffer.from(digest, 'latin1') : Buffer.from(digest ?? [])).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
const filled = (value: number, length: number) => new Uint8Array(length).fill(value);
const reference = (key: Uint8Array | string, prefix: string, body: Uint8Array) =>
  new Uint8Array(createHmac('sha256', key).update(prefix, 'latin1').update(body).digest());

// RFC 4231 section 4, HMAC-SHA-256 (case 5 is truncated to 128 bits by the RFC itself).
const RFC4231: [string, Uint8Array, Uint8Array, string][] = [
  ['1', filled(0x0b, 20), bytes('Hi There'), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
  [
    '2',
    bytes('Jefe'),
    bytes('what do ya want for nothing?'),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  ],
  ['3', filled(0xaa, 20), filled(0xdd, 50), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
  [
    '4',
    Uint8Array.from({ length: 25 }, (_, i) => i + 1),
    filled(0xcd, 50),
    '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  ],
  ['5', filled(0x0c, 20), bytes('Test With Truncation'), 'a3b6167473100ee06e0c796c2955552b'],
  [
    '6',
    filled(0xaa, 131),
    bytes('Test Using Larger Than Block-Size Key - Hash Key First'),
    '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  ],
  [
    '7',
    filled(0xaa, 131),
    bytes(
      'This is a test using a larger than block-size key and a larger than block-size data. ' +
        'The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
  ],
];

/** A small deterministic generator, so a failing case can be replayed from its seed. */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  return (below: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
}

const POOL = new Uint8Array(randomBytes(80 * 1024));

/**
 * Body lengths that matter: SHA-256 pads a message to a multiple of 64 bytes and needs 9
 * bytes for the length, so messages 55, 56, 63, 64 and 65 bytes past a block edge take
 * different paths; and both sides of the switch to createHmac at TWO_PASS_MAX_BODY_BYTES.
 */
function edgeLengths(prefixLength: number): number[] {
  const lengths = [0, 1, TWO_PASS_MAX_BODY_BYTES - 1, TWO_PASS_MAX_BODY_BYTES, TWO_PASS_MAX_BODY_BYTES + 1];
  for (const blocks of [0, 1, 2, 16]) {
    for (const past of [54, 55, 56, 57, 63, 64, 65]) {
      const body = blocks * 64 + past - prefixLength; // the message is ipad (64) + prefix + body
      if (body >= 0) lengths.push(body);
    }
  }
  return lengths;
}

describe('TwoPassHmac', () => {
  it.each(RFC4231)('gives the known answer of RFC 4231 test case %s', (_case, key, data, expected) => {
    const hmac = new TwoPassHmac(oneShot, key);
    // The RFC's data split anywhere between prefix and body is the same message.
    for (const cut of [0, 1, Math.min(8, data.length)]) {
      const prefix = Buffer.from(data.subarray(0, cut)).toString('latin1');
      expect(hex(hmac.digest(prefix, data.subarray(cut))).slice(0, expected.length)).toBe(expected);
    }
  });

  it('gives the right digest for each message of one key in turn, shorter, longer and grown', () => {
    const key = Buffer.from('whk_one_key_many_messages');
    const hmac = new TwoPassHmac(oneShot, key);
    for (const length of [10, 300, 10, 0, 5000, 20, 20, 9000, 3]) {
      const body = POOL.subarray(0, length);
      const expected = createHmac('sha256', key).update('1767225600.').update(body).digest('hex');
      expect(hex(hmac.digest('1767225600.', body))).toBe(expected);
    }
  });

  it('agrees with createHmac over 3,000 random keys, prefixes and bodies of 0 to 70 KiB', () => {
    const next = generator(0x5eed23);
    let checked = 0;
    for (let round = 0; round < 3000; round++) {
      const key = POOL.subarray(next(1000), next(1000) + next(3) * 40 + next(100)); // 0 to ~180 bytes
      const prefix = `${next(2) ? 1_767_225_600 + next(1e6) : next(100)}.`;
      const hmac = new TwoPassHmac(oneShot, key);
      // Every fourth round hits the edges; the others take a random length, mostly small.
      const lengths =
        round % 4 === 0
          ? [edgeLengths(prefix.length)[next(edgeLengths(prefix.length).length)]!]
          : [next(3) ? next(4096) : next(70 * 1024 + 1)];
      for (const length of lengths) {
        const start = next(POOL.length - length + 1);
        const body = POOL.subarray(start, start + length);
        const digest = hmac.digest(prefix, body);
        if (length > TWO_PASS_MAX_BODY_BYTES) {
          expect(digest).toBeUndefined();
          continue;
        }
        expect(hex(digest)).toBe(hex(reference(key, prefix, body)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2500);
  });

  it('agrees with createHmac at every block edge around the two-pass limit', () => {
    const key = POOL.subarray(0, 37);
    const hmac = new TwoPassHmac(oneShot, key);
    for (const prefix of ['1767225600.', '.', '']) {
      for (const length of edgeLengths(prefix.length)) {
        const body = POOL.subarray(7, 7 + length);
        const digest = hmac.digest(prefix, body);
        if (length > TWO_PASS_MAX_BODY_BYTES) expect(digest).toBeUndefined();
        else expect(hex(digest)).toBe(hex(reference(key, prefix, body)));
      }
    }
  });

  it('leaves nothing of a longer message behind for a shorter one (its scratch buffer is reused)', () => {
    const key = bytes('s3cret');
    const hmac = new TwoPassHmac(oneShot, key);
    for (const length of [60_000, 10, 5000, 0, 65_536, 3]) {
      const body = POOL.subarray(100, 100 + length);
      expect(hex(hmac.digest('1.', body))).toBe(hex(reference(key, '1.', body)));
    }
  });

  it('matches the right HMAC only, in full, and hands what it cannot take back to createHmac', () => {
    const key = bytes('s3cret');
    const hmac = new TwoPassHmac(oneShot, key);
    const body = POOL.subarray(0, 1000);
    const expected = reference(key, '1.', body);
    expect(hmac.matches('1.', body, expected)).toBe(true);
    for (let i = 0; i < 32; i++) {
      const tampered = expected.slice();
      tampered[i]! ^= 0x80;
      expect(hmac.matches('1.', body, tampered)).toBe(false);
    }
    expect(hmac.matches('1.', body, expected.subarray(0, 31))).toBe(false);
    expect(hmac.matches('1.', body, new Uint8Array([...expected, 0]))).toBe(false);
    expect(hmac.matches('1.', body, new Uint8Array(0))).toBe(false);
    const large = POOL.subarray(0, TWO_PASS_MAX_BODY_BYTES + 1);
    expect(hmac.matches('1.', large, reference(key, '1.', large))).toBeUndefined();
  });

  it('hands a prefix longer than any timestamp back to createHmac', () => {
    expect(new TwoPassHmac(oneShot, bytes('k')).digest(`${'9'.repeat(100)}.`, new Uint8Array(1))).toBeUndefined();
  });

  it('takes a prefix of up to 64 characters itself, and hands back the first longer one', () => {
    const key = bytes('k');
    const hmac = new TwoPassHmac(oneShot, key);
    const body = new Uint8Array(1);
    for (const prefix of [`${'9'.repeat(63)}.`, `${'9'.repeat(62)}.`]) {
      expect(hex(hmac.digest(prefix, body))).toBe(hex(reference(key, prefix, body)));
    }
    expect(hmac.digest(`${'9'.repeat(64)}.`, body)).toBeUndefined();
  });
});

describe('usableOneShotHash', () => {
  it('takes node:crypto hash where it exists and gives the known answer', () => {
    expect(usableOneShotHash(hash)).toBe(hash);
  });

  it.each([
    ['missing', undefined],
    ['not a function', 'sha256'],
    [
      'throwing',
      () => {
        throw new Error('no sha256 here');
      },
    ],
    ['giving hex instead of bytes', (algorithm: string, data: Uint8Array) => hash(algorithm, data, 'hex')],
    ['giving a wrong digest', () => new Uint8Array(32)],
  ])('refuses a hash that is %s', (_what, candidate) => {
    expect(usableOneShotHash(candidate)).toBeUndefined();
  });
});

describe('the node:crypto provider with the two-pass HMAC', () => {
  const provider = nodeCryptoProvider();

  it('verifies the same as createHmac, one-shot and streamed, for random secrets and 0 to 70 KiB bodies', () => {
    const next = generator(0xc0ffee);
    for (let round = 0; round < 1500; round++) {
      const secret = Buffer.from(POOL.subarray(next(1000), next(1000) + 1 + next(90)))
        .toString('base64')
        .slice(0, 1 + next(100));
      const verifier = provider.hmacSha256(secret);
      const prefix = `${1_767_225_600 + next(1000)}.`;
      const edges = edgeLengths(prefix.length);
      const length = round % 3 === 0 ? edges[next(edges.length)]! : next(2) ? next(2048) : next(70 * 1024 + 1);
      const body = POOL.subarray(next(POOL.length - length + 1)).subarray(0, length);
      const expected = reference(secret, prefix, body);
      expect(verifier.verify(prefix, body, expected)).toBe(true);
      const tampered = expected.slice();
      tampered[next(32)]! ^= 1 << next(8);
      expect(verifier.verify(prefix, body, tampered)).toBe(false);
      if (round % 10 === 0) {
        const stream = verifier.stream!(prefix);
        const cut = next(length + 1);
        stream.update(body.subarray(0, cut));
        stream.update(body.subarray(cut));
        expect(stream.matches(expected)).toBe(true);
      }
    }
  });

  it('keys with the UTF-8 bytes of a non-ASCII secret and refuses the wrong one', () => {
    const body = bytes('{"event":"test"}');
    const verifier = provider.hmacSha256('clé-🔑');
    expect(verifier.verify('1.', body, reference(Buffer.from('clé-🔑'), '1.', body))).toBe(true);
    expect(verifier.verify('1.', body, reference('cle-🔑', '1.', body))).toBe(false);
  });
});

describe('the inner digest writer: native latin1 where it answers right, else the loop', () => {
  const native = Buffer.prototype.latin1Write;

  it('writes with node:buffer on Node, and the bytes are the latin1 text', () => {
    expect(writeDigest).not.toBe(writeLatin1);
    for (const writer of [writeDigest, writeLatin1]) {
      const out = new Uint8Array(6);
      writer(out, 1, '\u00ff\u0000\u0080a');
      expect([...out]).toEqual([0, 0xff, 0, 0x80, 0x61, 0]);
    }
  });

  it.each([
    ['no module', undefined],
    ['no Buffer', {}],
    ['no prototype', { Buffer: {} }],
    ['no writer', { Buffer: { prototype: {} } }],
    ['a writer that is not a function', { Buffer: { prototype: { latin1Write: 'latin1Write' } } }],
    ['a writer that writes nothing', { Buffer: { prototype: { latin1Write: () => 0 } } }],
    ['a writer that writes UTF-8', { Buffer: { prototype: { latin1Write: Buffer.prototype.utf8Write as unknown } } }],
    [
      'a writer that throws on a plain Uint8Array',
      {
        Buffer: {
          prototype: {
            latin1Write() {
              throw new TypeError('argument must be a buffer');
            },
          },
        },
      },
    ],
  ])('falls back to the loop with %s', (_name, module) => {
    expect(latin1Writer(module as Parameters<typeof latin1Writer>[0])).toBe(writeLatin1);
  });

  it('uses a writer that gives the known answer, at the offset it is given', () => {
    const writer = latin1Writer({ Buffer: { prototype: { latin1Write: native } } });
    expect(writer).not.toBe(writeLatin1);
    const out = new Uint8Array(4);
    writer(out, 2, '\u00fe\u0001');
    expect([...out]).toEqual([0, 0, 0xfe, 1]);
  });
});
