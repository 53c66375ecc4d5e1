import { describe, expect, it } from 'vitest';
import { createReceiver, isWebhookError, type TokenSourceResult } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const OLD = 'old-token-0123456789abcdef';
const NEW = 'new-token-fedcba9876543210';

/** A token source whose answer the test changes, counting its reads. */
function source(initial: TokenSourceResult | Error) {
  const state = { value: initial, reads: 0 };
  const read = async () => {
    state.reads++;
    if (state.value instanceof Error) throw state.value;
    return state.value;
  };
  return { state, read };
}

const clock = (start = Date.now()) => {
  const time = { now: start };
  return { time, now: () => time.now };
};

async function refusalOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isWebhookError(error)) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('token sources', () => {
  it('verify() and handle() read an async source, once per tokenCacheMs', async () => {
    const { state, read } = source([NEW, OLD]);
    const { time, now } = clock();
    const receiver = createReceiver({ token: read, now, tokenCacheMs: 60_000 });
    const event = await receiver.verify(
      signDelivery({ token: OLD, payload: testPayload(), timestamp: Math.floor(time.now / 1000) }),
    );
    expect(event.tokenIndex).toBe(1);
    const answer = await receiver.handle(
      signDelivery({ token: NEW, payload: articleSyncPayload(), timestamp: Math.floor(time.now / 1000) }),
      {},
    );
    expect(answer.status).toBe(200);
    expect(state.reads).toBe(1);
    time.now += 60_000;
    await receiver.verify(signDelivery({ token: NEW, payload: testPayload(), timestamp: Math.floor(time.now / 1000) }));
    expect(state.reads).toBe(2);
  });

  it('a sync source works, as a plain string, list or { tokens }', async () => {
    for (const value of [NEW, [NEW], { tokens: NEW }, { tokens: [NEW] }]) {
      const receiver = createReceiver({ token: () => value });
      const event = await receiver.verify(signDelivery({ token: NEW, payload: testPayload() }));
      expect(event.tokenIndex).toBe(0);
    }
  });

  it('a regenerated token works on its first delivery, and a flood of wrong tokens costs one read a second', async () => {
    const { state, read } = source(OLD);
    const { time, now } = clock();
    const receiver = createReceiver({ token: read, now });
    await receiver.verify(signDelivery({ token: OLD, payload: testPayload(), timestamp: Math.floor(time.now / 1000) }));
    state.value = NEW;
    const event = await receiver.verify(
      signDelivery({ token: NEW, payload: testPayload(), timestamp: Math.floor(time.now / 1000) }),
    );
    expect(event.tokenIndex).toBe(0);
    expect(state.reads).toBe(2);
    const flood = Array.from({ length: 50 }, (_, i) =>
      refusalOf(receiver.verify(signDelivery({ token: `wrong-${i}`, payload: testPayload() }))),
    );
    for (const refusal of await Promise.all(flood)) expect(refusal.status).toBe(401);
    expect(state.reads).toBeLessThanOrEqual(3);
    const before = state.reads;
    time.now += 1000;
    await refusalOf(receiver.verify(signDelivery({ token: 'wrong', payload: testPayload() })));
    expect(state.reads).toBe(before + 1);
  });

  it('before any good read: 503 Token unavailable; a failing read keeps the last good list, reported once a minute', async () => {
    const { state, read } = source(new Error('secret manager down'));
    const { time, now } = clock();
    const errors: unknown[] = [];
    const receiver = createReceiver({ token: read, now, onError: (error) => errors.push(error) });
    const signed = () => signDelivery({ token: NEW, payload: testPayload(), timestamp: Math.floor(time.now / 1000) });
    expect(await refusalOf(receiver.verify(signed()))).toEqual({
      status: 503,
      code: 'token_unavailable',
      message: 'Token unavailable',
    });
    const answer = await receiver.handle(signed(), {});
    expect(answer).toEqual({ status: 503, body: { error: 'Token unavailable' } });
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).message)).not.toContain(NEW);
    state.value = NEW;
    time.now += 1000;
    expect((await receiver.verify(signed())).tokenIndex).toBe(0);
    state.value = new Error('down again');
    time.now += 61_000;
    expect((await receiver.verify(signed())).tokenIndex).toBe(0);
    time.now += 2000;
    expect((await receiver.verify(signed())).tokenIndex).toBe(0);
    // The known token was answered from the stale list; the read ran in the background.
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(2);
    state.value = ['', 5] as never;
    time.now += 61_000;
    expect((await receiver.verify(signed())).tokenIndex).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(3);
  });
});

describe('the rotation window', () => {
  const armed = (until: Date | number | string, token: string | (() => TokenSourceResult) = OLD) =>
    createReceiver({ token, rotatingUntil: until, logger: false });

  it('a plausible unknown token is 503 Token rotation in progress with Retry-After: 60', async () => {
    const receiver = armed(new Date(Date.now() + 3_600_000));
    const answer = await receiver.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }), {});
    expect(answer).toEqual({
      status: 503,
      body: { error: 'Token rotation in progress' },
      headers: { 'retry-after': '60' },
    });
    expect(await refusalOf(receiver.verify(signDelivery({ token: NEW, payload: testPayload() })))).toMatchObject({
      status: 503,
      code: 'token_rotating',
    });
  });

  it('everything else is unchanged: malformed 401, garbage 401, known token with a bad signature 403', async () => {
    const receiver = armed(Date.now() + 3_600_000);
    const signed = signDelivery({ token: OLD, payload: testPayload() });
    const withAuth = (authorization: string | undefined) => ({
      ...signed,
      headers: { ...signed.headers, Authorization: authorization as string },
    });
    expect((await receiver.handle(withAuth('Basic abc'), {})).status).toBe(401);
    expect((await receiver.handle(withAuth('Bearer '), {})).status).toBe(401);
    expect((await receiver.handle(withAuth(`Bearer ${'x'.repeat(513)}`), {})).status).toBe(401);
    expect((await receiver.handle(withAuth('Bearer tok\u00e9n'), {})).status).toBe(401);
    const bad = { ...signed, headers: { ...signed.headers, 'X-Service-Signature': `sha256=${'0'.repeat(64)}` } };
    expect((await receiver.handle(bad, {})).status).toBe(403);
    expect((await receiver.handle(signed, {})).status).toBe(200);
  });

  it('unarmed or past the window: 401', async () => {
    let offset = 0;
    const past = createReceiver({ token: OLD, rotatingUntil: Date.now() + 1000, now: () => Date.now() + offset });
    offset = 2000;
    for (const receiver of [createReceiver({ token: OLD }), past]) {
      const answer = await receiver.handle(signDelivery({ token: NEW, payload: testPayload() }), {});
      expect(answer.status).toBe(401);
    }
  });

  it('createReceiver throws on a window already past (contract v5)', () => {
    expect(() => armed(new Date(Date.now() - 1000).toISOString())).toThrow(/already past: the window would never arm/);
  });

  it("a source's rotatingUntil arms it", async () => {
    const receiver = armed(undefined as never, () => ({ tokens: [OLD], rotatingUntil: Date.now() + 60_000 }));
    expect((await receiver.handle(signDelivery({ token: NEW, payload: testPayload() }), {})).status).toBe(503);
  });

  it('createReceiver throws on a window more than 24 h ahead or unreadable', () => {
    expect(() => armed(Date.now() + 25 * 3_600_000)).toThrow(/at most 24 h ahead/);
    expect(() => armed('next tuesday')).toThrow(/Date, epoch milliseconds or an ISO 8601 string/);
    expect(() => armed(new Date(Number.NaN))).toThrow(/ISO 8601/);
  });
});

describe('knowing when the old token is unused', () => {
  it('warns at most once a minute while a token other than the first signs deliveries', async () => {
    const time = { now: Date.now() };
    const warnings: Array<{ message: string; fields: unknown }> = [];
    const receiver = createReceiver({
      token: [NEW, OLD],
      now: () => time.now,
      dedup: false,
      logger: { warn: (message: string) => warnings.push({ message, fields: undefined }), error: () => {} },
    });
    const send = (token: string) =>
      receiver.handle(signDelivery({ token, payload: testPayload(), timestamp: Math.floor(time.now / 1000) }), {});
    await send(NEW);
    expect(warnings).toHaveLength(0);
    await send(OLD);
    await send(OLD);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('token #1');
    expect(warnings[0]!.message).not.toContain(OLD);
    time.now += 60_000;
    await send(OLD);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]!.message).toMatch(/^webhook-cms-receiver: 2 delivery/);
  });
});
