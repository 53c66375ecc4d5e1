import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { nodeCryptoProvider } from '../../crypto/node-crypto.js';
import type { WebhookError } from '../../errors/webhook-error.js';
import { TokenKeeper } from './token-keeper.js';

// The keeper on a scripted clock, its source a list the test changes: when the source is read,
// what each answer is, and what is reported. Behaviour the receiver suites reach only in part.

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const bearer = (token: string) => `Bearer ${token}`;

function keeper(token: unknown, options: { rotatingUntil?: unknown; cacheMs?: number; readTimeoutMs?: number } = {}) {
  const clock = { now: T0 };
  const reported: WebhookError[] = [];
  const instance = new TokenKeeper({
    token,
    rotatingUntil: options.rotatingUntil,
    cacheMs: options.cacheMs ?? 60_000,
    crypto: nodeCryptoProvider(),
    now: () => clock.now,
    onReadFailed: (error) => reported.push(error),
    readTimeoutMs: options.readTimeoutMs,
  });
  return { clock, reported, instance };
}

/** A source whose answer the test sets, counting its reads. */
function source(first: unknown) {
  const state = { answer: first as unknown, reads: 0 };
  const read = () => {
    state.reads++;
    if (state.answer instanceof Error) throw state.answer;
    return state.answer;
  };
  return { state, read };
}

/** The refusal's code, whether match throws at once or rejects. */
const code = async (run: () => unknown) => {
  try {
    await run();
    return 'matched';
  } catch (error) {
    return (error as WebhookError).code;
  }
};

/** The refusal `run` throws, for its reason (what onRejected sees). */
function thrown(run: () => unknown): WebhookError {
  try {
    run();
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error('expected a refusal');
}

describe('TokenKeeper with fixed tokens', () => {
  it('matches synchronously, gives each token its index, and never reads', async () => {
    const { instance } = keeper(['whk_current', 'whk_previous']);
    expect(instance.dynamic).toBe(false);
    expect(instance.current()?.map((key) => key.token)).toEqual(['whk_current', 'whk_previous']);
    const second = instance.match(bearer('whk_previous'));
    expect(second).toMatchObject({ index: 1, key: { token: 'whk_previous' } });
    expect(instance.matchNow(bearer('whk_current'))).toMatchObject({ index: 0 });
    expect(thrown(() => instance.match(bearer('whk_other'))).reason).toBe(
      'the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
    );
    expect(thrown(() => instance.matchNow(bearer('whk_other'))).code).toBe('invalid_token');
    await expect(instance.refresh()).resolves.toBeUndefined();
  });

  it('finds a kept request by the hash of a current token', async () => {
    const { instance } = keeper(['whk_current', 'whk_previous']);
    expect(await instance.matchKept(sha256('whk_previous'))).toMatchObject({ index: 1 });
    expect(await instance.matchKept(sha256('whk_gone'))).toBeUndefined();
  });

  it('answers 503 while a rotation window is armed for a plausible unknown token, 401 after it', () => {
    const { clock, instance } = keeper('whk_current', { rotatingUntil: T0 + 3_600_000 });
    expect(instance.rotatingUntil()).toBe(T0 + 3_600_000);
    expect(thrown(() => instance.match(bearer('whk_new')))).toMatchObject({
      code: 'token_rotating',
      reason:
        'the Bearer token matches none of the configured tokens while a rotation window is armed until 2026-06-01T13:00:00.000Z',
    });
    // The head leaves a rotating token to the body (it may be kept); a malformed one is refused.
    expect(instance.matchNow(bearer('whk_new'))).toBeUndefined();
    expect(thrown(() => instance.match(bearer('whk_\u00e9'))).code).toBe('invalid_token');
    clock.now = T0 + 3_600_000;
    expect(instance.rotatingUntil()).toBeUndefined();
    expect(thrown(() => instance.match(bearer('whk_new'))).code).toBe('invalid_token');
  });
});

describe('TokenKeeper with a token source', () => {
  it('refuses with 503 before the first good read, reporting once a minute what happens meanwhile', async () => {
    const { state, read } = source(new Error('vault down'));
    const { clock, instance, reported } = keeper(read);
    expect(instance.dynamic).toBe(true);
    expect(instance.current()).toBeUndefined();
    expect(await code(() => instance.match(bearer('whk_a')))).toBe('token_unavailable');
    expect(reported).toHaveLength(1);
    expect(reported[0]!.reason).toBe(
      'the token source failed (deliveries are answered 503 until a read works): Error: vault down',
    );
    // A failing source is read again a second later, not on every request.
    clock.now += 999;
    await code(() => instance.match(bearer('whk_a')));
    expect(state.reads).toBe(1);
    clock.now += 1;
    await code(() => instance.match(bearer('whk_a')));
    expect(state.reads).toBe(2);
    expect(reported).toHaveLength(1);
    clock.now = T0 + 60_000;
    await code(() => instance.match(bearer('whk_a')));
    expect(reported).toHaveLength(2);
    // Unavailable, not unknown: the service retries a 503.
    expect(thrown(() => instance.matchNow(bearer('whk_a')))).toMatchObject({
      code: 'token_unavailable',
      reason: 'the token source has not given a usable token yet (see the error reported to onError)',
    });
  });

  it('keeps its answer for cacheMs, and keeps the last good list when a read fails', async () => {
    const { state, read } = source(['whk_a']);
    const { clock, instance, reported } = keeper(read, { cacheMs: 10_000 });
    expect(await instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
    clock.now += 9_999;
    expect(instance.matchNow(bearer('whk_a'))).toMatchObject({ index: 0 });
    expect(instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
    expect(state.reads).toBe(1);
    clock.now += 1;
    state.answer = new Error('vault down');
    // Stale: the head answers from the current list at once and starts a read in the background.
    expect(instance.matchNow(bearer('whk_a'))).toMatchObject({ index: 0 });
    expect(state.reads).toBe(2);
    expect(instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
    await instance.refresh();
    expect(reported[0]!.reason).toContain('the token source failed (the last good token list is kept)');
  });

  it('never holds a known token on a stale list, and a read that hangs fails after readTimeoutMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let reads = 0;
      let hang = false;
      const read = () => {
        reads++;
        return hang ? new Promise<never>(() => {}) : ['whk_a'];
      };
      const { clock, instance, reported } = keeper(read, { cacheMs: 10_000, readTimeoutMs: 3000 });
      expect(await instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
      hang = true;
      clock.now += 10_000;
      // Synchronous: no promise to wait on while the read hangs.
      expect(instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
      expect(instance.matchNow(bearer('whk_a'))).toMatchObject({ index: 0 });
      expect(reads).toBe(2);
      const unknown = code(() => instance.match(bearer('whk_z')));
      await vi.advanceTimersByTimeAsync(2999);
      expect(reported).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(await unknown).toBe('invalid_token');
      expect(reported).toHaveLength(1);
      expect(reported[0]!.reason).toBe(
        'the token source failed (the last good token list is kept): Error: the token source did not answer within 3000 ms (tokenReadTimeoutMs)',
      );
      expect(instance.current()?.map((key) => key.token)).toEqual(['whk_a']);
      // A failed read is tried again a second later, not on every request.
      expect(instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
      expect(reads).toBe(2);
      clock.now += 1000;
      expect(instance.match(bearer('whk_a'))).toMatchObject({ index: 0 });
      expect(reads).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for the first read, but at most readTimeoutMs: then 503 token_unavailable', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { instance, reported } = keeper(() => new Promise<never>(() => {}), { readTimeoutMs: 250 });
      expect(instance.matchNow(bearer('whk_a'))).toBeUndefined();
      const first = code(() => instance.match(bearer('whk_a')));
      await vi.advanceTimersByTimeAsync(250);
      expect(await first).toBe('token_unavailable');
      expect(reported[0]!.reason).toContain('deliveries are answered 503 until a read works');
      expect(reported[0]!.reason).toContain('did not answer within 250 ms');
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads again at once for an unknown token, at most once a second', async () => {
    const { state, read } = source(['whk_a']);
    const { clock, instance } = keeper(read);
    await instance.match(bearer('whk_a'));
    state.answer = ['whk_b', 'whk_a'];
    expect(await instance.match(bearer('whk_b'))).toMatchObject({ index: 0 });
    expect(state.reads).toBe(2);
    clock.now += 999;
    expect(await code(() => instance.match(bearer('whk_c')))).toBe('invalid_token');
    expect(state.reads).toBe(2);
    // Within the second the head refuses too; past it, it leaves the token to a read.
    expect(thrown(() => instance.matchNow(bearer('whk_c'))).code).toBe('invalid_token');
    clock.now += 1;
    expect(instance.matchNow(bearer('whk_c'))).toBeUndefined();
    expect(await code(() => instance.match(bearer('whk_c')))).toBe('invalid_token');
    expect(state.reads).toBe(3);
  });

  it('reads once for requests that arrive together', async () => {
    const { state, read } = source(['whk_a']);
    const { instance } = keeper(async () => read());
    const all = await Promise.all([1, 2, 3].map(() => instance.match(bearer('whk_a'))));
    expect(all.map((m) => m.index)).toEqual([0, 0, 0]);
    expect(state.reads).toBe(1);
    await instance.refresh();
    expect(state.reads).toBe(2);
  });

  it('tells its listener when a read changes the list, not when it gives the same one', async () => {
    const { state, read } = source(['whk_a']);
    const { instance } = keeper(read);
    let changes = 0;
    instance.onChange(() => changes++);
    await instance.refresh();
    expect(changes).toBe(1);
    const before = instance.current();
    await instance.refresh();
    expect(changes).toBe(0 + 1);
    // The same tokens keep their prepared keys.
    expect(instance.current()![0]).toBe(before![0]);
    state.answer = ['whk_a', 'whk_b'];
    await instance.refresh();
    expect(changes).toBe(2);
    state.answer = ['whk_b', 'whk_a'];
    await instance.refresh();
    expect(changes).toBe(3);
    state.answer = ['whk_b'];
    await instance.refresh();
    expect(changes).toBe(4);
  });

  it("takes the source's rotation window over the option's", async () => {
    const { state, read } = source({ tokens: 'whk_a', rotatingUntil: T0 + 7_200_000 });
    const { instance } = keeper(read, { rotatingUntil: T0 + 3_600_000 });
    expect(instance.rotatingUntil()).toBe(T0 + 3_600_000);
    await instance.refresh();
    expect(instance.rotatingUntil()).toBe(T0 + 7_200_000);
    state.answer = { tokens: 'whk_a' };
    await instance.refresh();
    expect(instance.rotatingUntil()).toBe(T0 + 3_600_000);
  });

  it('finds no kept request before the first good read', async () => {
    const { read } = source(new Error('vault down'));
    const { instance } = keeper(read);
    expect(await instance.matchKept(sha256('whk_a'))).toBeUndefined();
  });
});

describe('TokenKeeper: what a read reports and announces', () => {
  it('takes the tokens of an answer whose window is more than 24 h ahead, ignoring the window and keeping the cause', async () => {
    const { read } = source({ tokens: 'whk_a', rotatingUntil: T0 + 25 * 3_600_000 });
    const { instance, reported } = keeper(read);
    await instance.refresh();
    expect(instance.current()?.map((key) => key.token)).toEqual(['whk_a']);
    expect(instance.rotatingUntil()).toBeUndefined();
    expect(reported[0]!.reason).toBe(
      "the token source's answer is used without its rotation window: the token source's rotatingUntil is 25 h ahead; " +
        'a rotation window may be armed at most 24 h ahead. Arm it just before regenerating the token, for an hour or so.',
    );
    expect(reported[0]!.cause).toBeInstanceOf(RangeError);
  });

  it('announces a list where one token of the same count changed', async () => {
    const { state, read } = source(['whk_a', 'whk_b']);
    const { instance } = keeper(read);
    let changes = 0;
    instance.onChange(() => changes++);
    await instance.refresh();
    state.answer = ['whk_a', 'whk_c'];
    await instance.refresh();
    expect(changes).toBe(2);
  });

  it('names the option in a bad rotatingUntil', () => {
    expect(() => keeper('whk_a', { rotatingUntil: 'soon' })).toThrow(/^createReceiver: rotatingUntil must be a Date/);
  });
});
