import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_CACHE_MS, MAX_ROTATION_WINDOW_MS, readDeadline, readTokenList } from './token-source.js';

// What a token source (or the `token` option) may give, checked: the list that decides which
// Bearer tokens are accepted, and the rotation deadline. Every message names the fix.

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const clock = () => NOW;
const HOUR = 3_600_000;
const NEEDS =
  'label must be a non-empty string (or a non-empty array of them). Is WEBHOOK_TOKEN set? ' +
  'The token is shown once in Profile Settings → CMS Integration. ' +
  'It may also be a function returning either, or { tokens, rotatingUntil? }.';

describe('readTokenList', () => {
  it('takes a string, a list, or { tokens, rotatingUntil }', () => {
    expect(readTokenList('whk_a', clock, 'label')).toEqual({ tokens: ['whk_a'], rotatingUntil: undefined });
    expect(readTokenList(['whk_a', 'whk_b'], clock, 'label')).toEqual({
      tokens: ['whk_a', 'whk_b'],
      rotatingUntil: undefined,
    });
    expect(readTokenList({ tokens: 'whk_a' }, clock, 'label')).toEqual({ tokens: ['whk_a'], rotatingUntil: undefined });
    expect(readTokenList({ tokens: ['whk_a'], rotatingUntil: NOW + HOUR }, clock, 'label')).toEqual({
      tokens: ['whk_a'],
      rotatingUntil: NOW + HOUR,
    });
  });

  it('reads rotatingUntil only from the object form', () => {
    const list = Object.assign(['whk_a'], { rotatingUntil: NOW + HOUR });
    expect(readTokenList(list, clock, 'label').rotatingUntil).toBeUndefined();
  });

  it.each([
    ['an empty string', ''],
    ['an empty list', []],
    ['a list with an empty token', ['whk_a', '']],
    ['a list with a number', ['whk_a', 7]],
    ['a number', 7],
    ['null', null],
    ['{ tokens } without tokens', {}],
    ['{ tokens: [] }', { tokens: [] }],
  ])('refuses %s, naming the fix', (_, value) => {
    expect(() => readTokenList(value, clock, 'label')).toThrow(new TypeError(NEEDS));
  });

  it('points a missing token at tenant mode', () => {
    expect(() => readTokenList(undefined, clock, 'label')).toThrow(
      new TypeError(`${NEEDS} Receiving for many sites at one endpoint? Pass tenants instead of token.`),
    );
  });

  it("names the deadline's label after the list's", () => {
    expect(() => readTokenList({ tokens: 'whk_a', rotatingUntil: 'soon' }, clock, 'the token source')).toThrow(
      "the token source's rotatingUntil must be a Date",
    );
  });
});

describe('readDeadline', () => {
  it('is undefined when unset, without reading the clock', () => {
    const unread = () => {
      throw new Error('the clock was read');
    };
    expect(readDeadline(undefined, unread, 'label')).toBeUndefined();
    expect(readDeadline(null, unread, 'label')).toBeUndefined();
  });

  it('reads a Date, epoch ms and an ISO string, up to exactly 24 h ahead', () => {
    expect(readDeadline(new Date(NOW + HOUR), clock, 'label')).toBe(NOW + HOUR);
    expect(readDeadline(NOW + HOUR, clock, 'label')).toBe(NOW + HOUR);
    expect(readDeadline(new Date(NOW + HOUR).toISOString(), clock, 'label')).toBe(NOW + HOUR);
    expect(readDeadline(NOW + MAX_ROTATION_WINDOW_MS, clock, 'label')).toBe(NOW + MAX_ROTATION_WINDOW_MS);
    // A deadline in the past is read as given: the window is simply not armed.
    expect(readDeadline(NOW - HOUR, clock, 'label')).toBe(NOW - HOUR);
  });

  it('refuses more than 24 h ahead, saying how far and what to do', () => {
    expect(() => readDeadline(NOW + MAX_ROTATION_WINDOW_MS + 1, clock, 'label')).toThrow(
      new RangeError(
        'label is 24 h ahead; a rotation window may be armed at most 24 h ahead. ' +
          'Arm it just before regenerating the token, for an hour or so.',
      ),
    );
    expect(() => readDeadline(NOW + 30 * HOUR, clock, 'label')).toThrow(/^label is 30 h ahead;/);
  });

  it.each([
    ['an unparseable string', 'soon', '"soon"'],
    ['a blank string', '   ', '"   "'],
    ['an invalid Date', new Date(Number.NaN), 'object'],
    ['NaN', Number.NaN, 'number'],
    ['Infinity', Number.POSITIVE_INFINITY, 'number'],
    ['a boolean', true, 'boolean'],
  ])('refuses %s with an example an hour from now', (_, value, shown) => {
    expect(() => readDeadline(value, clock, 'label')).toThrow(
      new TypeError(
        "label must be a Date, epoch milliseconds or an ISO 8601 string such as '2026-06-01T13:00:00.000Z'; " +
          `got ${shown}.`,
      ),
    );
  });

  it('keeps the limits the docs state', () => {
    expect(MAX_ROTATION_WINDOW_MS).toBe(24 * HOUR);
    expect(DEFAULT_TOKEN_CACHE_MS).toBe(60_000);
  });
});
