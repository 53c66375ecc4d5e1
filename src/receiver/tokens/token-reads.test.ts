import { describe, expect, it } from 'vitest';
import type { HmacVerifier } from '../../crypto/provider.js';
import { matchToken, type TokenKey } from './token.js';
import { loggedBytes, loggedText, range, type ReadLog, readsOf } from '../../internal/read-log.js';

// Structural constant time for check 2, the Bearer token: no clock. matchToken must compare the
// header with every configured token, reading every character and byte, in one and the same
// order whether the header matches the first token, the last, or none, and wherever it first
// differs. The reads are recorded through instrumented inputs (src/internal/read-log.ts).

const encoder = new TextEncoder();
const unusedHmac = {} as HmacVerifier;
const START = 'Bearer '.length;

const TOKENS = [
  'tok_live_0123456789abcdefghijklmnop',
  'tok_next_qrstuvwxyz9876543210ABCDEF',
  'tok_old__GHIJKLMNOPQRSTUVWXYZ_-.~+/',
];

/** The configured tokens, each behind a view that logs its reads as `k0`, `k1`, … */
function keys(tokens: readonly string[], log: ReadLog): TokenKey[] {
  return tokens.map((token, i) => ({
    token,
    bytes: loggedBytes(encoder.encode(token), log, `k${i}`),
    hmac: unusedHmac,
  }));
}

function record(tokens: readonly string[], header: string): { index: number | 'refused'; log: ReadLog } {
  const log: ReadLog = [];
  const configured = keys(tokens, log);
  let index: number | 'refused';
  try {
    index = matchToken(configured, loggedText(header, log, 't'));
  } catch {
    index = 'refused';
  }
  return { index, log };
}

function flipChar(text: string, at: number): string {
  return text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
}

/** How many times each position of the header was read. */
function countsOf(log: ReadLog): Map<number, number> {
  const counts = new Map<number, number>();
  for (const at of readsOf(log, 't')) counts.set(at, (counts.get(at) ?? 0) + 1);
  return counts;
}

describe('matchToken compares in constant time (checked by its reads, not by a clock)', () => {
  it('reads every byte of every configured token and every header character, whichever token matches', () => {
    const logs = TOKENS.map((token, i) => {
      const { index, log } = record(TOKENS, `Bearer ${token}`);
      expect(index).toBe(i);
      return log;
    });
    for (const [i, token] of TOKENS.entries()) expect(readsOf(logs[0]!, `k${i}`)).toEqual(range(0, token.length));
    const counts = countsOf(logs[0]!);
    for (let at = START; at < START + TOKENS[0]!.length; at++)
      expect(counts.get(at)).toBeGreaterThanOrEqual(TOKENS.length);
    // Same record for a match on the first, the middle and the last token.
    expect(logs[1]).toEqual(logs[0]);
    expect(logs[2]).toEqual(logs[0]);
  });

  it('reads the same way for no match, with a first difference at any position of any token', () => {
    const { log: reference } = record(TOKENS, `Bearer ${TOKENS[0]}`);
    for (const [i, token] of TOKENS.entries()) {
      const header = `Bearer ${token}`;
      for (let at = START; at < header.length; at++) {
        const { index, log } = record(TOKENS, flipChar(header, at));
        expect(index, `token ${i}, difference at ${at}`).toBe('refused');
        expect(log, `token ${i}, difference at ${at}`).toEqual(reference);
      }
    }
  });

  it('compares every configured token when the header has another length, reading the longer of the two', () => {
    for (const candidate of ['short', `${TOKENS[0]}${'x'.repeat(10)}`]) {
      const { index, log } = record(TOKENS, `Bearer ${candidate}`);
      expect(index).toBe('refused');
      for (const [i, token] of TOKENS.entries()) {
        expect(readsOf(log, `k${i}`)).toEqual(range(0, Math.max(token.length, candidate.length)));
      }
    }
  });

  it('compares every configured token for a token past ASCII too (the encoded path), the same way wherever it differs', () => {
    const tokens = ['tök_ünïcode_0123456789', 'tök_ünïcode_9876543210'];
    const matching = record(tokens, `Bearer ${tokens[1]}`);
    expect(matching.index).toBe(1);
    for (const [i, token] of tokens.entries()) {
      const length = encoder.encode(token).length;
      // The ASCII pass reads each byte once, then the byte comparison of the encoded header once more.
      expect(readsOf(matching.log, `k${i}`)).toEqual([...range(0, length), ...range(0, length)]);
    }
    const header = `Bearer ${tokens[0]}`;
    const first = record(tokens, header);
    expect(first.index).toBe(0);
    expect(first.log).toEqual(matching.log);
    for (let at = START + 5; at < header.length; at++) {
      if (header.charCodeAt(at) > 0x7f) continue;
      const { index, log } = record(tokens, flipChar(header, at));
      expect(index, `difference at ${at}`).toBe('refused');
      expect(log, `difference at ${at}`).toEqual(matching.log);
    }
  });
});
