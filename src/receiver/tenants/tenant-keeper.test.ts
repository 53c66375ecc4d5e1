import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { nodeCryptoProvider } from '../../crypto/node-crypto.js';
import type { WebhookError } from '../../errors/webhook-error.js';
import type { Tenant } from './tenant.js';
import { TenantKeeper } from './tenant-keeper.js';

// The keeper on a scripted clock: what a flood, a slow resolver or a long run of unknown
// tokens does to the resolver's calls and to a known site's answers.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const known: Tenant = { id: 'site-known', token: 'whk_known_token' };
const bearer = (token: string) => `Bearer ${token}`;

function keeper(options: { perSecond?: number; rotating?: boolean; tenants?: (hash: string) => unknown } = {}) {
  const clock = { now: 1_800_000_000_000 };
  const tenants = vi.fn(
    options.tenants ?? ((hash: string) => (hash === sha256('whk_known_token') ? known : undefined)),
  );
  const reported: WebhookError[] = [];
  const instance = new TenantKeeper({
    tenants: tenants as never,
    rotatingUntil: options.rotating ? clock.now + 3_600_000 : undefined,
    cacheMs: 60_000,
    lookupsPerSecond: options.perSecond ?? 10,
    crypto: nodeCryptoProvider(),
    now: () => clock.now,
    onReadFailed: (error) => reported.push(error),
  });
  return { clock, tenants, instance, reported };
}

const settle = async (value: unknown) => {
  try {
    await value;
    return 'matched';
  } catch (error) {
    return (error as WebhookError).code;
  }
};

describe('TenantKeeper under load', () => {
  it('caps lookups as a bucket: the cap at once, then as the time refills it, never twice the cap in a moment', async () => {
    const { clock, tenants, instance } = keeper({ perSecond: 10 });
    const codes = [];
    for (let i = 0; i < 25; i++) codes.push(await settle(instance.match(bearer(`whk_random_${i}`))));
    expect(tenants).toHaveBeenCalledTimes(10);
    expect(codes.filter((code) => code === 'token_unavailable')).toHaveLength(15);
    clock.now += 999;
    for (let i = 0; i < 25; i++) await settle(instance.match(bearer(`whk_later_${i}`)));
    expect(tenants).toHaveBeenCalledTimes(19);
  });

  it('looks kept requests up within the same cap: a kept flood is spread over passes', async () => {
    const { tenants, instance } = keeper({ perSecond: 10, rotating: true });
    const kept = Array.from({ length: 40 }, (_, i) => sha256(`whk_kept_${i}`));
    for (const hash of kept) expect(await instance.matchKept(hash)).toBeUndefined();
    expect(tenants.mock.calls.length).toBeLessThanOrEqual(10);
  });

  it('looks a known site up again once its entry expired: a removed token stops, a hung resolver waits 1 s at most', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let answer: 'known' | 'hang' | 'gone' = 'known';
      const { clock, instance } = keeper({
        tenants: (hash) =>
          answer === 'hang'
            ? new Promise(() => {})
            : answer === 'known' && hash === sha256('whk_known_token')
              ? known
              : undefined,
      });
      expect(await instance.match(bearer('whk_known_token'))).toMatchObject({ tenant: { ref: { id: 'site-known' } } });
      answer = 'hang';
      clock.now += 61_000;
      // The head cannot wait: it leaves the answer to the body's check.
      expect(instance.matchNow(bearer('whk_known_token'))).toBeUndefined();
      const held = instance.match(bearer('whk_known_token'));
      await vi.advanceTimersByTimeAsync(1000);
      expect(await held).toMatchObject({ index: 0 });
      // Past the 5 s lookup timeout the failure is kept as a retry a second later; then the row is gone.
      await vi.advanceTimersByTimeAsync(5000);
      answer = 'gone';
      clock.now += 1000;
      expect(await settle(instance.match(bearer('whk_known_token')))).toBe('invalid_token');
    } finally {
      vi.useRealTimers();
    }
  });

  it('never lets a long flood of unknown tokens push a known site out, even with the cap spent', async () => {
    const { clock, instance } = keeper({ perSecond: 1000 });
    await instance.match(bearer('whk_known_token'));
    clock.now += 61_000;
    // 12,000 unknown tokens over 12 s, past the unknown map's bound, while the known entry is stale.
    for (let second = 0; second < 12; second++) {
      clock.now += 1000;
      await Promise.all(Array.from({ length: 1000 }, (_, i) => settle(instance.match(bearer(`whk_${second}_${i}`)))));
    }
    for (let i = 0; i < 1000; i++) await settle(instance.match(bearer(`whk_spend_${i}`)));
    expect(await settle(instance.match(bearer('whk_other')))).toBe('token_unavailable');
    expect(await settle(instance.match(bearer('whk_known_token')))).toBe('matched');
  });

  it('fails a lookup that never answers after 5 s with 503, reported once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { instance, reported } = keeper({ tenants: () => new Promise(() => {}) });
      const pending = settle(instance.match(bearer('whk_slow')));
      await vi.advanceTimersByTimeAsync(5000);
      expect(await pending).toBe('token_unavailable');
      expect(reported).toHaveLength(1);
      expect(reported[0]!.reason).toContain('did not answer within 5000 ms');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('TenantKeeper: answers, reports and the binding', () => {
  it('binds a match to its tenant, domain lower-cased, and each token to its index', async () => {
    const site: Tenant = {
      id: 'site-b',
      token: ['whk_b_new', 'whk_b_old'],
      profileId: 'prof-b',
      domain: 'B.Example.COM',
    };
    const { instance } = keeper({ tenants: () => site });
    const match = await instance.match(bearer('whk_b_old'));
    expect(match.index).toBe(1);
    expect(match.tenant).toMatchObject({ ref: { id: 'site-b' }, profileId: 'prof-b', domain: 'b.example.com' });
    expect(Object.isFrozen(match.tenant)).toBe(true);
    expect(Object.isFrozen(match.tenant!.ref)).toBe(true);
    // The hash that found it answers the head at once; the other token's hash is not cached yet.
    expect(instance.matchNow(bearer('whk_b_old'))).toMatchObject({ index: 1, tenant: { ref: { id: 'site-b' } } });
    expect(instance.matchNow(bearer('whk_b_new'))).toBeUndefined();
    // Its other token, not presented, is still refused when wrong.
    expect(await settle(instance.match(bearer('whk_b_other')))).toBe('invalid_token');
  });

  it('answers 503 for a failing resolver, reporting at most once a minute', async () => {
    const { clock, instance, reported } = keeper({
      tenants: () => {
        throw new Error('db down');
      },
    });
    const refusal = await Promise.resolve(instance.match(bearer('whk_a'))).then(
      () => undefined,
      (error: WebhookError) => error,
    );
    expect(refusal).toMatchObject({ code: 'token_unavailable', reason: 'the tenants resolver failed: Error: db down' });
    expect(reported.map((error) => error.reason)).toEqual(['the tenants resolver failed: Error: db down']);
    clock.now += 59_999;
    await settle(instance.match(bearer('whk_b')));
    expect(reported).toHaveLength(1);
    clock.now += 1;
    await settle(instance.match(bearer('whk_c')));
    expect(reported).toHaveLength(2);
  });

  it('answers 503 for a plausible unknown token while a rotation window is armed, and leaves it to the body on the head', async () => {
    const { clock, instance, tenants } = keeper({ rotating: true });
    const until = new Date(clock.now + 3_600_000).toISOString();
    const refusal = await Promise.resolve(instance.match(bearer('whk_new'))).then(
      () => undefined,
      (error: WebhookError) => error,
    );
    expect(refusal).toMatchObject({
      code: 'token_rotating',
      reason: `the Bearer token belongs to no tenant while a rotation window is armed until ${until}`,
    });
    // Now a known unknown: the head answers without a lookup, leaving a rotating token to the body.
    expect(instance.matchNow(bearer('whk_new'))).toBeUndefined();
    expect(tenants).toHaveBeenCalledTimes(1);
    expect(await settle(instance.match(bearer('whk_\u00e9')))).toBe('invalid_token');
    clock.now += 3_600_000;
    expect(instance.rotatingUntil()).toBeUndefined();
    expect(await settle(instance.match(bearer('whk_new')))).toBe('invalid_token');
  });

  it('refuses an uncached token on the head once the cap is spent, without a lookup', async () => {
    const { tenants, instance } = keeper({ perSecond: 1 });
    expect(instance.matchNow(bearer('whk_x'))).toBeUndefined();
    await settle(instance.match(bearer('whk_x')));
    expect(() => instance.matchNow(bearer('whk_y'))).toThrow();
    expect(tenants).toHaveBeenCalledTimes(1);
  });

  it('tells its listener of a newly found tenant only while a rotation window is armed', async () => {
    for (const rotating of [true, false]) {
      const { instance } = keeper({ rotating });
      let changes = 0;
      instance.onChange(() => changes++);
      await instance.match(bearer('whk_known_token'));
      expect(changes).toBe(rotating ? 1 : 0);
    }
  });

  it('finds a kept request by its hash, through the cache, and never an unknown one twice', async () => {
    const { tenants, instance } = keeper();
    expect(await instance.matchKept(sha256('whk_known_token'))).toMatchObject({
      tenant: { ref: { id: 'site-known' } },
    });
    expect(await instance.matchKept(sha256('whk_known_token'))).toMatchObject({ index: 0 });
    expect(tenants).toHaveBeenCalledTimes(1);
    expect(await instance.matchKept(sha256('whk_unknown'))).toBeUndefined();
    expect(await instance.matchKept(sha256('whk_unknown'))).toBeUndefined();
    expect(tenants).toHaveBeenCalledTimes(2);
    await expect(instance.refresh()).resolves.toBeUndefined();
  });
});

describe('TenantKeeper: one lookup at a time, and a failing resolver', () => {
  it('looks a hash up once for requests that arrive together', async () => {
    let calls = 0;
    const { instance } = keeper({
      tenants: async (hash) => {
        calls++;
        await new Promise((resolve) => setImmediate(resolve));
        return hash === sha256('whk_known_token') ? known : undefined;
      },
    });
    const all = await Promise.all([1, 2, 3].map(() => instance.match(bearer('whk_known_token'))));
    expect(all.map((match) => match.index)).toEqual([0, 0, 0]);
    expect(calls).toBe(1);
  });

  it("keeps the resolver's error as the refusal's cause", async () => {
    const failure = new Error('db down');
    const { instance, reported } = keeper({
      tenants: () => {
        throw failure;
      },
    });
    const refusal = await Promise.resolve(instance.match(bearer('whk_a'))).then(
      () => undefined,
      (error: WebhookError) => error,
    );
    expect(refusal?.cause).toBe(failure);
    expect(reported[0]!.cause).toBe(failure);
  });

  it('answers a known site from its last entry while the resolver fails, asking again a second later, keys reused', async () => {
    let fail = false;
    let calls = 0;
    const { clock, instance } = keeper({
      tenants: (hash) => {
        calls++;
        if (fail) throw new Error('db down');
        return hash === sha256('whk_known_token') ? known : undefined;
      },
    });
    const first = await instance.match(bearer('whk_known_token'));
    fail = true;
    clock.now += 60_000;
    expect(await instance.match(bearer('whk_known_token'))).toBe(first);
    expect(calls).toBe(2);
    clock.now += 999;
    expect(instance.matchNow(bearer('whk_known_token'))).toBe(first);
    expect(calls).toBe(2);
    clock.now += 1;
    fail = false;
    const again = await instance.match(bearer('whk_known_token'));
    expect(calls).toBe(3);
    // The same token keeps its prepared key across a refresh.
    expect(again.key).toBe(first.key);
  });
});

describe('TenantKeeper: kept requests and refreshed entries', () => {
  const two: Tenant = { id: 'site-two', token: ['whk_two_new', 'whk_two_old'] };
  const twoByHash = (hash: string) =>
    hash === sha256('whk_two_new') || hash === sha256('whk_two_old') ? two : undefined;

  it("matches a kept request to the token whose hash it stored, not the tenant's first", async () => {
    const { instance } = keeper({ tenants: twoByHash });
    expect(await instance.matchKept(sha256('whk_two_old'))).toMatchObject({ index: 1, key: { token: 'whk_two_old' } });
  });

  it("looks a kept request's stale tenant up again: a token removed since is not matched", async () => {
    let removed = false;
    const { clock, instance } = keeper({
      tenants: (hash) => (removed ? { id: 'site-two', token: 'whk_two_new' } : twoByHash(hash)),
    });
    expect(await instance.matchKept(sha256('whk_two_old'))).toMatchObject({ index: 1 });
    removed = true;
    clock.now += 61_000;
    expect(await instance.matchKept(sha256('whk_two_old'))).toBeUndefined();
  });

  it("refreshes a known site's tokens after expiry, outside the cap: a token removed since stops", async () => {
    let tokens: string[] = ['whk_two_new', 'whk_two_old'];
    const { clock, instance } = keeper({
      perSecond: 1,
      tenants: (hash) => (hash === sha256('whk_two_old') ? { id: 'site-two', token: tokens } : undefined),
    });
    expect(await instance.match(bearer('whk_two_old'))).toMatchObject({ index: 1 });
    tokens = ['whk_two_new'];
    clock.now += 60_000;
    // The cap is spent by an unknown token; the refresh of a known site does not need it.
    expect(await settle(instance.match(bearer('whk_random')))).toBe('invalid_token');
    expect(await settle(instance.match(bearer('whk_two_old')))).toBe('invalid_token');
  });

  it('reuses the prepared key of a token that stays when an entry is refreshed', async () => {
    const { clock, instance } = keeper({ tenants: twoByHash });
    const first = await instance.match(bearer('whk_two_old'));
    clock.now += 60_000;
    const again = await instance.match(bearer('whk_two_old'));
    expect(again).not.toBe(first);
    expect(again.key).toBe(first.key);
  });

  it('finds a tenant during a rotation window without a change listener set', async () => {
    const { instance } = keeper({ rotating: true });
    expect(await instance.match(bearer('whk_known_token'))).toMatchObject({ index: 0 });
  });
});

describe('TenantKeeper options', () => {
  it('names the option in a bad rotatingUntil', () => {
    expect(
      () =>
        new TenantKeeper({
          tenants: () => undefined,
          rotatingUntil: 'soon',
          cacheMs: 60_000,
          lookupsPerSecond: 10,
          crypto: nodeCryptoProvider(),
          now: Date.now,
          onReadFailed: () => {},
        }),
    ).toThrow(/^createReceiver: rotatingUntil must be a Date/);
  });
});
