import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultCryptoProvider } from '../../crypto/default-provider.js';
import { deferredMatcher } from './deferred-matcher.js';
import { FixedTokens, matchKeptIn, prepareKeys } from './fixed-tokens.js';
import type { MatchedToken, TokenMatcher } from './token-matcher.js';

const crypto = defaultCryptoProvider();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'not refused';
};

describe('FixedTokens: a fixed token or list, matched synchronously', () => {
  const fixed = new FixedTokens(['tok_first', 'tok_second'], crypto);

  it('answers the index of the token presented, at once, on the head and in the check alike', () => {
    expect(fixed.matchNow('Bearer tok_first')?.index).toBe(0);
    expect(fixed.matchNow('bearer tok_second')?.index).toBe(1);
    expect((fixed.match('Bearer tok_second') as MatchedToken).index).toBe(1);
    // One match object per token, made once: a delivery allocates none.
    expect(fixed.match('Bearer tok_first')).toBe(fixed.matchNow('Bearer tok_first'));
  });

  it('refuses an unknown token and a malformed header with check 2, never as a rotation', () => {
    expect(refusal(() => fixed.matchNow('Bearer tok_third'))).toBe('invalid_token');
    expect(refusal(() => fixed.match('Basic tok_first'))).toBe('invalid_token');
    expect(refusal(() => fixed.matchNow(undefined))).toBe('invalid_token');
    expect(fixed.rotatingUntil()).toBeUndefined();
  });

  it('finds a kept request by its token hash; an unknown hash finds none', async () => {
    expect((await fixed.matchKept(sha256('tok_second')))?.index).toBe(1);
    expect(await fixed.matchKept(sha256('tok_other'))).toBeUndefined();
    await expect(fixed.refresh()).resolves.toBeUndefined();
  });

  it('prepareKeys reuses the verifier of a token already known, and makes one for a new token', () => {
    const first = prepareKeys(['a', 'b'], crypto);
    const again = prepareKeys(['b', 'c'], crypto, first);
    expect(again[0]).toBe(first[1]);
    expect(again[1]).toMatchObject({ token: 'c', bytes: new TextEncoder().encode('c') });
    expect(first.includes(again[1]!)).toBe(false);
  });

  it('matchKeptIn hashes every candidate until one matches', async () => {
    const keys = prepareKeys(['x', 'y', 'z'], crypto);
    const matches = keys.map((key, index) => ({ index, key }));
    expect((await matchKeptIn(matches, sha256('z')))?.index).toBe(2);
    expect(await matchKeptIn([], sha256('z'))).toBeUndefined();
  });
});

/** A matcher whose load the test releases, to look at the deferred matcher before and after. */
function deferred(options: { deadline?: number; now?: () => number; fails?: boolean } = {}) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const inner = new FixedTokens(['tok_loaded'], crypto);
  const listeners: Array<() => void> = [];
  const loaded: TokenMatcher = Object.assign(Object.create(inner) as TokenMatcher, {
    rotatingUntil: () => 42,
    refresh: () => Promise.resolve(),
    onChange: (listener: () => void) => void listeners.push(listener),
  });
  const matcher = deferredMatcher({
    load: () => gate.then(() => (options.fails ? Promise.reject(new Error('chunk missing')) : loaded)),
    deadline: options.deadline,
    now: options.now ?? (() => 1_000),
  });
  return { matcher, release, listeners, settle: () => gate.then(() => new Promise((r) => setTimeout(r, 0))) };
}

describe('deferredMatcher: a matcher whose code loads on first use', () => {
  it('before the code is in: leaves a well-formed head to the body, refuses a malformed one at once', () => {
    const { matcher } = deferred();
    expect(matcher.matchNow('Bearer tok_loaded')).toBeUndefined();
    expect(matcher.matchNow('Bearer anything')).toBeUndefined();
    expect(refusal(() => matcher.matchNow('Token tok_loaded'))).toBe('invalid_token');
  });

  it('a check made before the load waits for it, then answers as the loaded matcher does', async () => {
    const { matcher, release } = deferred();
    const waiting = matcher.match('Bearer tok_loaded');
    const kept = matcher.matchKept(sha256('tok_loaded'));
    release();
    expect((await waiting).index).toBe(0);
    expect((await kept)?.index).toBe(0);
    expect(matcher.matchNow('Bearer tok_loaded')?.index).toBe(0);
    expect((matcher.match('Bearer tok_loaded') as MatchedToken).index).toBe(0);
    expect(refusal(() => matcher.matchNow('Bearer wrong'))).toBe('invalid_token');
  });

  it('the window is the option’s deadline while loading, then the loaded matcher’s', async () => {
    let now = 1_000;
    const { matcher, settle, release, listeners } = deferred({ deadline: 2_000, now: () => now });
    expect(matcher.rotatingUntil()).toBe(2_000);
    now = 2_000;
    expect(matcher.rotatingUntil()).toBeUndefined();
    expect(deferred().matcher.rotatingUntil()).toBeUndefined();
    release();
    await settle();
    expect(matcher.rotatingUntil()).toBe(42);
    // No listener was set: none is handed over.
    expect(listeners).toEqual([]);
  });

  it('hands a change listener set before the load to the loaded matcher, and one set after at once', async () => {
    const early = deferred();
    const before = () => {};
    early.matcher.onChange(before);
    expect(early.listeners).toEqual([]);
    early.release();
    await early.settle();
    expect(early.listeners).toEqual([before]);
    const after = () => {};
    early.matcher.onChange(after);
    expect(early.listeners).toEqual([before, after]);
  });

  it('a failed load is answered on use, as a rejected check; refresh still never rejects', async () => {
    const { matcher, release, settle } = deferred({ fails: true });
    release();
    await settle();
    await expect(matcher.match('Bearer tok_loaded')).rejects.toThrow('chunk missing');
    await expect(matcher.refresh()).resolves.toBeUndefined();
    expect(matcher.matchNow('Bearer tok_loaded')).toBeUndefined();
  });

  it('refresh waits for the code, then reads through the loaded matcher', async () => {
    const { matcher, release } = deferred();
    let settled = false;
    const refreshing = matcher.refresh().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(false);
    release();
    await refreshing;
    expect(settled).toBe(true);
  });
});
