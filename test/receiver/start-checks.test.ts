import { describe, expect, it, vi } from 'vitest';
import { createReceiver, memoryDedupStore, type WebhookError } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// Contract v5, "Configuration is checked by createReceiver, before any delivery": each mistake
// below otherwise costs deliveries the service never retries (401s), or opens a replay window.

const token = 'whk_start_checks_token';
const HOUR = 3_600_000;

/** The message createReceiver throws, or undefined when it does not. */
function thrownBy(make: () => unknown): string | undefined {
  try {
    make();
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

describe('the token', () => {
  it('with a trailing newline (a secret file) or space (a .env line) throws, naming where, never the token', () => {
    const newline = thrownBy(() => createReceiver({ token: `${token}\n` }));
    expect(newline).toMatch(/^createReceiver: token has a line break \(U\+000A\) at its end, character 23 of 23;/);
    expect(newline).toContain('process.env.WEBHOOK_TOKEN?.trim()');
    expect(newline).not.toContain(token);
    expect(thrownBy(() => createReceiver({ token: [token, `${token} `] }))).toMatch(
      /^createReceiver: token\[1\] has a space \(U\+0020\) at its end/,
    );
  });

  it('from a token source, an implausible answer is a failed read: the last good list stays, onError hears it', async () => {
    let answer = token;
    const errors: WebhookError[] = [];
    let now = Date.now();
    const receiver = createReceiver({
      token: () => answer,
      tokenCacheMs: 1000,
      now: () => now,
      onError: (error) => errors.push(error as WebhookError),
    });
    const deliver = () =>
      receiver.handle(signDelivery({ token, payload: testPayload(), timestamp: Math.floor(now / 1000) }));
    expect((await deliver()).status).toBe(200);
    answer = `${token}\r\n`;
    now += 2000;
    expect((await deliver()).status).toBe(200);
    // A known token need not wait for the re-read, so its failure may be heard just after.
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect((await deliver()).status).toBe(200);
    expect(errors[0]!.code).toBe('token_unavailable');
    expect(errors[0]!.reason).toMatch(/the last good token list is kept.*line break \(U\+000D\)/);
    expect(errors[0]!.reason).not.toContain(token);
  });

  it("from a token source, a bad rotatingUntil drops the window, not the new token (issue 45's defect 7)", async () => {
    const errors: WebhookError[] = [];
    const receiver = createReceiver({
      token: () => ({ tokens: ['whk_new_token', token], rotatingUntil: Date.now() + 48 * HOUR }),
      onError: (error) => errors.push(error as WebhookError),
    });
    const fresh = signDelivery({ token: 'whk_new_token', payload: testPayload() });
    expect(await receiver.handle(fresh)).toMatchObject({ status: 200 });
    expect(errors.map((error) => error.reason)).toEqual([
      expect.stringMatching(/^the token source's answer is used without its rotation window: .* 48 h ahead/),
    ]);
  });
});

describe('rotatingUntil', () => {
  it('in Unix seconds throws, naming the unit', () => {
    const seconds = Math.floor((Date.now() + HOUR) / 1000);
    expect(thrownBy(() => createReceiver({ token, rotatingUntil: seconds }))).toBe(
      `createReceiver: rotatingUntil is ${seconds}, which looks like Unix seconds; it takes epoch milliseconds (${seconds} * 1000) or a Date.`,
    );
  });

  it('already past throws, in token and in tenant mode', () => {
    const past = new Date(Date.now() - 60_000);
    expect(thrownBy(() => createReceiver({ token, rotatingUntil: past }))).toMatch(
      /already past: the window would never arm/,
    );
    expect(thrownBy(() => createReceiver({ tenants: () => undefined, rotatingUntil: past }))).toMatch(/already past/);
    expect(thrownBy(() => createReceiver({ token, rotatingUntil: new Date(Date.now() + HOUR) }))).toBeUndefined();
  });
});

describe('toleranceSeconds', () => {
  it('above an hour throws unless allowLongTolerance, naming the unit mistake', () => {
    expect(thrownBy(() => createReceiver({ token, toleranceSeconds: 300_000 }))).toBe(
      'createReceiver: toleranceSeconds is 300000 seconds (83.3 h): a replayed delivery would be accepted that long. ' +
        'It is in seconds, not milliseconds (the default is 300); if you mean it, pass allowLongTolerance: true as well.',
    );
    expect(thrownBy(() => createReceiver({ token, toleranceSeconds: 3601 }))).toMatch(/3601 seconds/);
    expect(thrownBy(() => createReceiver({ token, toleranceSeconds: 3600 }))).toBeUndefined();
    expect(
      thrownBy(() => createReceiver({ token, toleranceSeconds: 300_000, allowLongTolerance: true })),
    ).toBeUndefined();
  });

  it('of the wrong type says the type it got', () => {
    expect(thrownBy(() => createReceiver({ token, toleranceSeconds: '300' as never }))).toBe(
      'createReceiver: toleranceSeconds must be a positive number, got the string "300".',
    );
  });
});

describe('dedup and ordering', () => {
  it('ordering: true with dedup: false throws: nothing would be ordered', () => {
    expect(thrownBy(() => createReceiver({ token, ordering: true, dedup: false }))).toMatch(
      /^createReceiver: ordering: true keeps its marks in the dedup store, and dedup: false turns the store off/,
    );
  });

  it('a dedup that is not a store throws, saying what it got', () => {
    expect(thrownBy(() => createReceiver({ token, dedup: true as never }))).toMatch(
      /^createReceiver: dedup must be a dedup store .* or false to turn dedup off; got true \(a boolean\)\./,
    );
    expect(thrownBy(() => createReceiver({ token, dedup: {} as never }))).toMatch(
      /got an object without a claim method/,
    );
    expect(thrownBy(() => createReceiver({ token, dedup: 'redis' as never }))).toMatch(/got the string "redis"/);
    expect(thrownBy(() => createReceiver({ token, dedup: memoryDedupStore() }))).toBeUndefined();
  });
});

describe('tenantLookupsPerSecond', () => {
  it("below 1 throws (issue 45's defect 9: 0.5 meant no site was ever looked up)", () => {
    expect(thrownBy(() => createReceiver({ tenants: () => undefined, tenantLookupsPerSecond: 0.5 }))).toMatch(
      /^createReceiver: tenantLookupsPerSecond must be at least 1 .*got 0\.5;/,
    );
    expect(thrownBy(() => createReceiver({ tenants: () => undefined, tenantLookupsPerSecond: 1 }))).toBeUndefined();
  });
});

describe('the credential, for the compiler', () => {
  it('must be exactly one of token and tenants', () => {
    // @ts-expect-error no credential
    expect(thrownBy(() => createReceiver({}))).toMatch(/token must be a non-empty string/);
    // @ts-expect-error both credentials
    expect(thrownBy(() => createReceiver({ token, tenants: () => undefined }))).toMatch(/either token or tenants/);
    // An unset environment variable compiles and is caught at start, with the fix.
    expect(thrownBy(() => createReceiver({ token: process.env.WCR_NO_SUCH_VARIABLE }))).toMatch(
      /Is WEBHOOK_TOKEN set\?/,
    );
  });
});
