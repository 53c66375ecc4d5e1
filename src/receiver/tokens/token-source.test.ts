import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOKEN_CACHE_MS,
  MAX_ROTATION_WINDOW_MS,
  readDeadline,
  readDeadlineOption,
  readTokenList,
} from './token-source.js';

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

  it("keeps the tokens of an answer whose rotatingUntil is bad, naming the deadline's label after the list's", () => {
    for (const rotatingUntil of ['soon', NOW + 25 * HOUR, 1_780_000_000]) {
      const list = readTokenList({ tokens: ['whk_new', 'whk_old'], rotatingUntil }, clock, 'the token source');
      expect(list.tokens).toEqual(['whk_new', 'whk_old']);
      expect(list.rotatingUntil).toBeUndefined();
      expect(list.windowProblem?.message).toMatch(/^the token source's rotatingUntil /);
    }
    expect(readTokenList({ tokens: 'whk_a', rotatingUntil: NOW + HOUR }, clock, 'l').windowProblem).toBeUndefined();
  });

  it.each([
    ['a trailing newline', 'whk_abc\n', 'a line break (U+000A) at its end, character 8 of 8'],
    ['a trailing carriage return', 'whk_abc\r', 'a line break (U+000D) at its end, character 8 of 8'],
    ['a leading space', ' whk_abc', 'a space (U+0020) at its start, character 1 of 8'],
    ['a tab inside', 'whk\tabc', 'a tab (U+0009) at position 4, character 4 of 7'],
    ['a DEL', 'whk\u007fabc', 'a control character (U+007F) at position 4, character 4 of 7'],
    ['a start-of-heading', 'whk\u0001abc', 'a control character (U+0001) at position 4, character 4 of 7'],
    ['a no-break space', 'whk\u00a0abc', 'a space (U+00A0) at position 4, character 4 of 7'],
    ['a non-ASCII letter', 'whk_é', 'a non-ASCII character (U+00E9) at its end, character 5 of 5'],
  ])('refuses a token with %s, naming where and what, never the token', (_, token, where) => {
    const thrown = (() => {
      try {
        readTokenList(token, clock, 'label');
      } catch (error) {
        return error as Error;
      }
    })();
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown?.message).toBe(
      `label has ${where}; the service's tokens are printable ASCII without spaces. ` +
        'A secret file or .env line often ends in a newline: trim it, e.g. process.env.WEBHOOK_TOKEN?.trim().',
    );
    expect(thrown?.message).not.toContain('abc');
  });

  it('names the list entry, and takes every printable ASCII character from ! to ~', () => {
    expect(() => readTokenList(['whk_a', 'whk_b '], clock, 'label')).toThrow(/^label\[1\] has a space/);
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(readTokenList(printable, clock, 'label').tokens).toEqual([printable]);
  });

  it('takes 512 characters and refuses 513, naming the length', () => {
    expect(readTokenList('a'.repeat(512), clock, 'label').tokens).toEqual(['a'.repeat(512)]);
    expect(() => readTokenList(['ok', 'a'.repeat(513)], clock, 'label')).toThrow(
      new RangeError(
        "label[1] is 513 characters long; the service's tokens are at most 512. " +
          'Is it the token from Profile Settings → CMS Integration, or a whole file?',
      ),
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

  it('names a number below 10^11 as seconds, and takes 10^11 as milliseconds', () => {
    expect(() => readDeadline(Math.floor((NOW + HOUR) / 1000), clock, 'label')).toThrow(
      new RangeError(
        `label is ${Math.floor((NOW + HOUR) / 1000)}, which looks like Unix seconds; it takes epoch milliseconds ` +
          `(${Math.floor((NOW + HOUR) / 1000)} * 1000) or a Date.`,
      ),
    );
    expect(() => readDeadline(1e11 - 1, clock, 'label')).toThrow(/looks like Unix seconds/);
    expect(readDeadline(1e11, clock, 'label')).toBe(1e11);
    // Only a number is taken for seconds: a short date string is a date (here, in the past).
    expect(readDeadline('2001', clock, 'label')).toBe(Date.parse('2001'));
  });

  it('as the option, refuses a moment already past (or now), and takes one a millisecond ahead', () => {
    for (const past of [NOW, NOW - 1, new Date(NOW - HOUR).toISOString()]) {
      expect(() => readDeadlineOption(past, clock)).toThrow(
        /^createReceiver: rotatingUntil is .*, already past: the window would never arm\./,
      );
    }
    expect(() => readDeadlineOption(NOW - HOUR, clock)).toThrow(
      new RangeError(
        'createReceiver: rotatingUntil is 2026-06-01T11:00:00.000Z, already past: the window would never arm. ' +
          "Set it to the window's end, e.g. new Date(Date.now() + 60 * 60 * 1000) for an hour from now.",
      ),
    );
    expect(readDeadlineOption(NOW + 1, clock)).toBe(NOW + 1);
    expect(readDeadlineOption(undefined, clock)).toBeUndefined();
  });

  it('keeps the limits the docs state', () => {
    expect(MAX_ROTATION_WINDOW_MS).toBe(24 * HOUR);
    expect(DEFAULT_TOKEN_CACHE_MS).toBe(60_000);
  });
});
