import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type Tenant, type WebhookEvent } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { connect, describeWithRedis, freshPrefix, type TestClient } from '../redis/redis-clients.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const NEW_TOKEN = 'whk_instances_site_new';
const profile = { id: 'prof-i', domain: 'i.example.com' };

/** Sends as the service does: again after a 409 (a copy in flight), until another answer comes. */
async function settledAnswer(send: () => Promise<{ status: number; body: unknown }>) {
  for (;;) {
    const answer = await send();
    if (answer.status !== 409) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithRedis('kept requests in tenant mode, two instances on one Redis (contract v4)', () => {
  let redis: TestClient;
  beforeAll(async () => {
    redis = await connect('ioredis');
  });
  afterAll(() => redis?.close());

  it('re-reads the resolver on its own timer, with no new delivery, and only one instance processes the kept request', async () => {
    const sites = new Map<string, Tenant>();
    const keyPrefix = freshPrefix();
    const seen: Array<{ instance: number; event: WebhookEvent }> = [];
    let processed: () => void = () => {};
    const done = new Promise<void>((resolve) => (processed = resolve));
    const instance = (n: number) => {
      const receiver = createReceiver({
        tenants: (hash) => sites.get(hash),
        rotatingUntil: Date.now() + 3_600_000,
        // Re-checks kept requests this often; an unknown hash is re-read after 1 s.
        tokenCacheMs: 50,
        dedup: redisDedupStore(redis.client, { keyPrefix }),
        logger: false,
      });
      const handlers = {
        'article.sync': (event: WebhookEvent) => {
          seen.push({ instance: n, event });
          processed();
        },
      };
      return { receiver, handlers };
    };
    const [first, second] = [instance(1), instance(2)];
    const kept = signDelivery({
      token: NEW_TOKEN,
      deliveryId: 'kept-on-redis',
      payload: articleSyncPayload({ profile }),
    });
    expect((await first.receiver.handle(kept, first.handlers)).status).toBe(503);
    // The second instance has handled something too, so it re-checks kept requests as well.
    const stranger = signDelivery({ token: 'whk_instances_nobody', payload: articleSyncPayload({ profile }) });
    expect((await second.receiver.handle(stranger, second.handlers)).status).toBe(503);
    const keptList = redisDedupStore(redis.client, { keyPrefix }).kept!;
    expect(await keptList.list()).toHaveLength(2);

    // The site's new token reaches the table; nobody sends anything.
    sites.set(sha256(NEW_TOKEN), { id: 'site-i', token: NEW_TOKEN, profileId: profile.id, domain: profile.domain });
    await done;
    // Taken by one instance: only the stranger's request is left kept.
    while ((await keptList.list()).length > 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await keptList.list()).toEqual([expect.objectContaining({ tokenSha256: sha256('whk_instances_nobody') })]);
    const again = signDelivery({
      token: NEW_TOKEN,
      deliveryId: 'kept-on-redis',
      payload: articleSyncPayload({ profile }),
    });
    // The service's retry comes 2 s or more later: past the 1 s the second instance remembers the
    // new token's hash as unknown, if its own pass looked it up before the site's row was there.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The handler ran; its completion may still be on its way to Redis, which answers a copy 409 (retried).
    for (const { receiver, handlers } of [second, first]) {
      expect(await settledAnswer(() => receiver.handle(again, handlers))).toEqual({
        status: 200,
        body: { ok: true, duplicate: true },
      });
    }
    expect(seen.map(({ event }) => [event.deliveryId, event.tenant])).toEqual([['kept-on-redis', { id: 'site-i' }]]);
  });
});
