import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore, type Tenant } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freshTable } from '../postgres/fresh-table.js';
import { connect, describeWithRedis, freshPrefix, type TestClient } from '../redis/redis-clients.js';
import { HOW_TO_RUN_POSTGRES, type StartedPostgres, startPostgres } from '../setup/postgres.js';
import { eventRecorder } from '../helpers/event-recorder.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const siteA: Tenant = { id: 'site-a', token: 'whk_kept_site_a', profileId: 'prof-a', domain: 'a.example.com' };
const OLD_B = 'whk_kept_site_b_old';
const NEW_B = 'whk_kept_site_b_new';

/** Sends as the service does: again after a 409 (a copy in flight), until another answer comes. */
async function settledAnswer(send: () => Promise<{ status: number; body: unknown }>) {
  for (;;) {
    const answer = await send();
    if (answer.status !== 409) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Contract v4: "A receiver-wide `rotatingUntil` works in tenant mode: kept requests are looked
 * up through `tenants` again on each re-read." Site B regenerates its token; the resolver does
 * not know the new one yet, so B's delivery is answered 503 and kept in the store. Site A uses
 * the same delivery id meanwhile. Once the resolver knows B's new token, B's kept delivery is
 * processed once, as site B, and the service's retry of it is a duplicate.
 */
function keptInTenantMode(name: string, makeStore: (now: () => number) => Promise<DedupStore> | DedupStore) {
  it(`${name}: a site's regenerated token is kept, then processed once as that site when the resolver learns it`, async () => {
    const time = { now: Date.now() };
    const sites = new Map<string, Tenant>([
      [sha256(siteA.token as string), siteA],
      [sha256(OLD_B), { id: 'site-b', token: OLD_B, profileId: 'prof-b', domain: 'b.example.com' }],
    ]);
    const lookups: string[] = [];
    const store = await makeStore(() => time.now);
    expect(store.kept, 'this store keeps requests itself').toBeDefined();
    const receiver = createReceiver({
      tenants: (hash) => {
        lookups.push(hash);
        return sites.get(hash);
      },
      rotatingUntil: time.now + 3_600_000,
      now: () => time.now,
      dedup: store,
      logger: false,
    });
    const { seen, until, handlers } = eventRecorder();
    const seconds = () => Math.floor(time.now / 1000);
    const forB = (deliveryId?: string) =>
      signDelivery({
        token: NEW_B,
        deliveryId,
        timestamp: seconds(),
        payload: articleSyncPayload({
          timestamp: seconds(),
          article: { id: 'article-1' },
          profile: { id: 'prof-b', domain: 'b.example.com' },
        }),
      });
    const forA = (deliveryId: string) =>
      signDelivery({
        token: siteA.token as string,
        deliveryId,
        timestamp: seconds(),
        payload: articleSyncPayload({
          timestamp: seconds(),
          article: { id: 'article-1' },
          profile: { id: 'prof-a', domain: 'a.example.com' },
        }),
      });

    const kept = forB('shared-delivery');
    const refused = await receiver.handle(kept, handlers);
    expect(refused).toMatchObject({ status: 503, body: { error: 'Token rotation in progress' } });
    expect(await store.kept!.list()).toEqual([expect.objectContaining({ tokenSha256: sha256(NEW_B) })]);
    // Site A, with its own token, uses the same delivery and article ids meanwhile.
    expect(await receiver.handle(forA('shared-delivery'), handlers)).toEqual({ status: 200, body: { ok: true } });
    expect(seen.map((event) => event.tenant?.id)).toEqual(['site-a']);

    // Site B's row now has its new token; past the 1 s an unknown hash is kept for, B sends again.
    sites.set(sha256(NEW_B), { id: 'site-b', token: [NEW_B, OLD_B], profileId: 'prof-b', domain: 'b.example.com' });
    time.now += 2_000;
    const live = forB();
    expect(await receiver.handle(live, handlers)).toEqual({ status: 200, body: { ok: true } });
    await until(3);
    const ofB = seen.filter((event) => event.tenant?.id === 'site-b');
    expect(ofB.map((event) => event.deliveryId).sort()).toEqual(
      ['shared-delivery', live.headers['X-Service-Delivery-Id']].sort(),
    );
    const processed = ofB.find((event) => event.deliveryId === 'shared-delivery')!;
    expect(processed.tenant).toEqual({ id: 'site-b' });
    expect(processed.tokenIndex).toBe(0);
    expect(await store.kept!.list()).toEqual([]);

    // The service's retry of the kept delivery is B's duplicate (after a 409 while its completion
    // is still on its way to the store), and A's retry is A's.
    expect(await settledAnswer(() => receiver.handle(forB('shared-delivery'), handlers))).toEqual({
      status: 200,
      body: { ok: true, duplicate: true },
    });
    expect(await receiver.handle(forA('shared-delivery'), handlers)).toEqual({
      status: 200,
      body: { ok: true, duplicate: true },
    });
    expect(seen.filter((event) => event.deliveryId === 'shared-delivery').map((event) => event.tenant!.id)).toEqual([
      'site-a',
      'site-b',
    ]);
    // The resolver only ever saw hashes, never a token.
    for (const hash of lookups) expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });
}

describe('kept requests in tenant mode (contract v4, rotatingUntil)', () => {
  keptInTenantMode('memoryDedupStore', (now) => memoryDedupStore({ now }));
});

describeWithRedis('kept requests in tenant mode on Redis', () => {
  for (const clientName of ['redis', 'ioredis'] as const) {
    describe(`with ${clientName}`, () => {
      let redis: TestClient | undefined;
      afterAll(() => redis?.close());
      keptInTenantMode(`redisDedupStore (${clientName})`, async () => {
        redis = await connect(clientName);
        return redisDedupStore(redis.client, { keyPrefix: freshPrefix() });
      });
    });
  }
});

const server: StartedPostgres = await startPostgres();
(server.url ? describe : describe.skip)(
  `kept requests in tenant mode on Postgres${server.url ? '' : ` (skipped: ${HOW_TO_RUN_POSTGRES})`}`,
  () => {
    let pool: pg.Pool | undefined;
    afterAll(async () => {
      await pool?.end();
      await server.stop();
    });
    keptInTenantMode('postgresDedupStore (pg Pool)', () => {
      pool = new pg.Pool({ connectionString: server.url, max: 4 });
      pool.on('error', () => {});
      return postgresDedupStore(pool, { table: freshTable() });
    });
  },
);
