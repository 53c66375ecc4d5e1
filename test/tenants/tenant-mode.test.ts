import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  memoryDedupStore,
  type ReceiverSettings,
  type Tenant,
  type WebhookEvent,
} from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const siteA: Tenant = { id: 'site-a', token: 'whk_site_a_token', profileId: 'prof-a', domain: 'a.example.com' };
const siteB: Tenant = { id: 'site-b', token: 'whk_site_b_token', profileId: 'prof-b', domain: 'B.Example.com' };
const byHash = new Map([siteA, siteB].map((tenant) => [sha256(tenant.token as string), tenant]));

function tenantReceiver(options: Partial<ReceiverSettings> = {}, sites = byHash) {
  const tenants = vi.fn((hash: string) => sites.get(hash));
  return { tenants, receiver: createReceiver({ tenants, ...options }) };
}

const profileOf = (tenant: Tenant) => ({ id: tenant.profileId!, domain: tenant.domain!.toLowerCase() });
const syncFor = (tenant: Tenant, options: { deliveryId?: string; articleId?: string; timestamp?: number } = {}) =>
  signDelivery({
    token: Array.isArray(tenant.token) ? tenant.token[0]! : (tenant.token as string),
    deliveryId: options.deliveryId,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    payload: articleSyncPayload({
      profile: profileOf(tenant),
      ...(options.articleId ? { article: { id: options.articleId } } : {}),
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    }),
  });

describe('tenant mode (contract v4, many sites one endpoint)', () => {
  it('looks each site up by the SHA-256 hex of its token, never the token, and hands handlers event.tenant', async () => {
    const { tenants, receiver } = tenantReceiver();
    const seen: WebhookEvent[] = [];
    const handlers = { 'article.sync': (event: WebhookEvent) => void seen.push(event) };
    expect((await receiver.handle(syncFor(siteA), handlers)).status).toBe(200);
    expect((await receiver.handle(syncFor(siteB), handlers)).status).toBe(200);
    expect(seen.map((event) => event.tenant)).toEqual([{ id: 'site-a' }, { id: 'site-b' }]);
    expect(tenants.mock.calls).toEqual([[sha256('whk_site_a_token')], [sha256('whk_site_b_token')]]);
    for (const [argument] of tenants.mock.calls) expect(argument).not.toContain('whk_');
  });

  it('keeps a found tenant for tokenCacheMs and an unknown hash for 1 s', async () => {
    let now = 1_800_000_000_000;
    const { tenants, receiver } = tenantReceiver({ now: () => now, tokenCacheMs: 30_000, dedup: false });
    const at = (seconds: number) => Math.floor(now / 1000) + seconds * 0;
    for (let i = 0; i < 3; i++) await receiver.handle(syncFor(siteA, { timestamp: at(0) }));
    expect(tenants).toHaveBeenCalledTimes(1);
    now += 30_001;
    await receiver.handle(syncFor(siteA, { timestamp: Math.floor(now / 1000) }));
    expect(tenants).toHaveBeenCalledTimes(2);
    const stranger = signDelivery({
      token: 'whk_unknown',
      payload: testPayload({ timestamp: Math.floor(now / 1000) }),
    });
    expect((await receiver.handle(stranger)).status).toBe(401);
    expect((await receiver.handle(stranger)).status).toBe(401);
    expect(tenants).toHaveBeenCalledTimes(3);
    now += 1000;
    expect((await receiver.handle(stranger)).status).toBe(401);
    expect(tenants).toHaveBeenCalledTimes(4);
  });

  it("answers 403 Profile mismatch when a site's token signs another site's profile; the ids go to onRejected only", async () => {
    const onRejected = vi.fn();
    const { receiver } = tenantReceiver({ onRejected });
    const forged = signDelivery({
      token: siteA.token as string,
      payload: articleTrashPayload({ profile: profileOf(siteB) }),
    });
    const answer = await receiver.handle(forged);
    expect(answer).toEqual({ status: 403, body: { error: 'Profile mismatch' } });
    expect(JSON.stringify(answer)).not.toContain('prof-');
    const [error] = onRejected.mock.calls[0]!;
    expect(error.code).toBe('profile_mismatch');
    expect(error.reason).toContain('"prof-b"');
    expect(error.reason).toContain('"prof-a"');
    expect(error.reason).toContain('"site-a"');
    await expect(receiver.verify(forged)).rejects.toMatchObject({ status: 403, code: 'profile_mismatch' });
  });

  it('compares the domain case-insensitively, checks it alone when profileId is unset, and accepts test on the token', async () => {
    const domainOnly: Tenant = { id: 'site-c', token: 'whk_site_c', domain: 'C.example.COM' };
    const { receiver } = tenantReceiver({}, new Map([[sha256('whk_site_c'), domainOnly]]));
    const sign = (domain: string) =>
      signDelivery({ token: 'whk_site_c', payload: articleSyncPayload({ profile: { id: 'any', domain } }) });
    expect((await receiver.handle(sign('c.EXAMPLE.com'))).status).toBe(200);
    expect((await receiver.handle(sign('d.example.com'))).status).toBe(403);
    const test = await receiver.verify(signDelivery({ token: 'whk_site_c', payload: testPayload() }));
    expect(test).toMatchObject({ type: 'test', tenant: { id: 'site-c' } });
  });

  it('compares the token itself too: a resolver that returns a tenant for the wrong hash does not let a token in', async () => {
    const receiver = createReceiver({ tenants: () => siteA });
    const other = signDelivery({ token: 'whk_someone_else', payload: testPayload() });
    expect((await receiver.handle(other)).status).toBe(401);
  });

  it('refuses tenants with token, and a tenants that is not a function, naming the fix', () => {
    // @ts-expect-error both credentials: the compiler refuses it too (ReceiverOptions is a union)
    expect(() => createReceiver({ token: 't', tenants: () => undefined })).toThrow(/either token or tenants, not both/);
    expect(() => createReceiver({ tenants: 'nope' as never })).toThrow(/tenants must be a function/);
    expect(() => createReceiver({ tenants: () => undefined, tenantLookupsPerSecond: 0 })).toThrow(
      /tenantLookupsPerSecond/,
    );
  });

  it('keeps state per tenant: colliding delivery and article ids never meet, and no site can make another stale', async () => {
    const dedup = memoryDedupStore();
    const { receiver } = tenantReceiver({ dedup, ordering: true });
    const handled: string[] = [];
    const handlers = {
      'article.sync': (event: WebhookEvent) => void handled.push(`${event.tenant!.id}:sync`),
      'article.trash': (event: WebhookEvent) => void handled.push(`${event.tenant!.id}:trash`),
    };
    const now = Math.floor(Date.now() / 1000);
    // Site A, holding its own valid token, sends a future-dated trash naming site B's article id.
    const attack = signDelivery({
      token: siteA.token as string,
      deliveryId: 'shared-delivery',
      payload: articleTrashPayload({ timestamp: now + 200, article: { id: 'article-1' }, profile: profileOf(siteA) }),
    });
    expect(await receiver.handle(attack, handlers)).toEqual({ status: 200, body: { ok: true } });
    const real = syncFor(siteB, { deliveryId: 'shared-delivery', articleId: 'article-1', timestamp: now });
    expect(await receiver.handle(real, handlers)).toEqual({ status: 200, body: { ok: true } });
    expect(handled).toEqual(['site-a:trash', 'site-b:sync']);
  });

  it('reports a failing resolver to onError once, answers 503 (retried) and keeps a known tenant on its last answer', async () => {
    let now = 1_800_000_000_000;
    let failing = false;
    const onError = vi.fn();
    const receiver = createReceiver({
      now: () => now,
      onError,
      dedup: false,
      tenants: (hash) => {
        if (failing) throw new Error('database is down');
        return byHash.get(hash);
      },
    });
    const fresh = (tenant: Tenant) => syncFor(tenant, { timestamp: Math.floor(now / 1000) });
    expect((await receiver.handle(fresh(siteA))).status).toBe(200);
    failing = true;
    now += 61_000;
    expect((await receiver.handle(fresh(siteA))).status).toBe(200);
    const unknown = await receiver.handle(fresh(siteB));
    expect(unknown).toEqual({ status: 503, body: { error: 'Token unavailable' } });
    expect(onError).toHaveBeenCalledTimes(1);
    expect(String(onError.mock.calls[0]![0].reason)).toContain('database is down');
  });

  it('answers 503 and reports a resolver answer of the wrong shape, naming the field and never its value', async () => {
    const onError = vi.fn();
    const receiver = createReceiver({ onError, tenants: () => ({ id: 'x', tokens: ['whk'] }) as never });
    const answer = await receiver.handle(signDelivery({ token: 'whk', payload: testPayload() }));
    expect(answer.status).toBe(503);
    const reason = String(onError.mock.calls[0]![0].reason);
    expect(reason).toContain('token must be a non-empty string or a non-empty array of them; got undefined');
    const secret = createReceiver({
      onError,
      tenants: () => ({ id: 'x', token: 'whk', domain: ['whk_secret'] }) as never,
    });
    await secret.handle(signDelivery({ token: 'whk', payload: testPayload() }));
    const second = String(onError.mock.calls[1]![0].reason);
    expect(second).toContain('domain must be a string when set; got an array of 1');
    expect(second).not.toContain('whk_secret');
  });

  it('takes a numeric id and profileId (an integer primary key) as their decimal text', async () => {
    const row = { id: 42, token: 'whk_numeric', profileId: 7 };
    const receiver = createReceiver({ tenants: () => row as never });
    const event = await receiver.verify(
      signDelivery({
        token: 'whk_numeric',
        payload: articleSyncPayload({ profile: { id: '7', domain: 'n.example' } }),
      }),
    );
    expect(event.tenant).toEqual({ id: '42' });
  });

  it('holds an event this version does not know to the same profile check when it names a profile', async () => {
    const { receiver } = tenantReceiver();
    const sign = (profile: unknown) =>
      signDelivery({
        token: siteA.token as string,
        payload: { event: 'article.publish', timestamp: Math.floor(Date.now() / 1000), profile } as never,
      });
    expect((await receiver.handle(sign(profileOf(siteB)))).status).toBe(403);
    expect((await receiver.handle(sign(profileOf(siteA)))).status).toBe(200);
    expect((await receiver.handle(sign(null))).status).toBe(200);
  });

  it('warns per tenant while an older token still signs, naming the tenant', async () => {
    const warn = vi.fn();
    const rotating: Tenant = { id: 'site-r', token: ['whk_new_1', 'whk_old_1'] };
    const other: Tenant = { id: 'site-s', token: ['whk_new_2', 'whk_old_2'] };
    const sites = new Map([
      [sha256('whk_old_1'), rotating],
      [sha256('whk_old_2'), other],
    ]);
    // A structured logger (it has child, as pino does) gets the fields object first.
    const logger = { warn, error: vi.fn(), child: vi.fn() };
    const receiver = createReceiver({ tenants: (hash) => sites.get(hash), logger: logger as never });
    await receiver.handle(signDelivery({ token: 'whk_old_1', payload: testPayload() }));
    await receiver.handle(signDelivery({ token: 'whk_old_2', payload: testPayload() }));
    expect(warn.mock.calls.map(([, line]) => line)).toEqual([
      expect.stringContaining('for tenant site-r'),
      expect.stringContaining('for tenant site-s'),
    ]);
    expect(warn.mock.calls[1]![0]).toMatchObject({ tenant: 'site-s', tokenIndex: 1 });
  });

  it("accepts both of a tenant's tokens during its own rotation, with tokenIndex", async () => {
    const rotating: Tenant = { id: 'site-r', token: ['whk_new', 'whk_old'] };
    const sites = new Map([
      [sha256('whk_new'), rotating],
      [sha256('whk_old'), rotating],
    ]);
    const { receiver } = tenantReceiver({}, sites);
    const oldOne = await receiver.verify(signDelivery({ token: 'whk_old', payload: testPayload() }));
    const newOne = await receiver.verify(signDelivery({ token: 'whk_new', payload: testPayload() }));
    expect([oldOne.tokenIndex, newOne.tokenIndex]).toEqual([1, 0]);
    expect(oldOne.tenant).toEqual({ id: 'site-r' });
  });
});
