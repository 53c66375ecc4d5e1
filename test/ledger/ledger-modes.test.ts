import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DeliveryQueue,
  memoryLedger,
  type QueuedDelivery,
  type Tenant,
  type WebhookHandlers,
  withQueueMode,
} from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function post(url: string, delivery: { headers: Record<string, string>; body: string | Uint8Array }) {
  const response = await fetch(`${url}/webhook`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body as BodyInit,
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the ledger in tenant mode, queue mode and with a token source', () => {
  it('records the tenant, and recovers a site whose token was regenerated as that site', async () => {
    const siteA: Tenant = { id: 'site-a', token: 'whk_ledger_site_a_0123456789', profileId: 'prof-a' };
    const OLD_B = 'whk_ledger_site_b_old_0123456';
    const NEW_B = 'whk_ledger_site_b_new_6543210';
    const sites = new Map<string, Tenant>([
      [sha256(siteA.token as string), siteA],
      [sha256(OLD_B), { id: 'site-b', token: OLD_B, profileId: 'prof-b' }],
    ]);
    let now = Date.now();
    const ledger = memoryLedger({ keepRefused: true, now: () => now });
    const handled: string[] = [];
    const handlers: WebhookHandlers = { 'article.sync': ({ tenant }) => void handled.push(tenant!.id) };
    const receiver = createReceiver({ tenants: (hash) => sites.get(hash), ledger, now: () => now, logger: false });
    const server = await listen(createServer(webhookHandler(receiver, handlers)));
    servers.push(server);
    const payloadA = articleSyncPayload({ profile: { id: 'prof-a' } });
    const payloadB = articleSyncPayload({ profile: { id: 'prof-b' } });
    expect(await post(server.url, signDelivery({ token: siteA.token as string, payload: payloadA }))).toBe(200);
    expect(await post(server.url, signDelivery({ token: NEW_B, payload: payloadB }))).toBe(401);
    await ledger.flush();
    expect((await ledger.list()).rows.map((row) => [row.tenant, row.status, row.kept ?? false])).toEqual([
      [null, 401, true],
      ['site-a', 200, false],
    ]);
    expect(await ledger.recover()).toEqual({ recovered: 0, failed: 0, unverified: 1 });
    // Site B's new token reaches the resolver.
    sites.set(sha256(NEW_B), { id: 'site-b', token: NEW_B, profileId: 'prof-b' });
    // Past the second an unknown hash is remembered for.
    now += 2000;
    expect(await ledger.recover()).toEqual({ recovered: 1, failed: 0, unverified: 0 });
    expect(handled).toEqual(['site-a', 'site-b']);
    const [recovered] = (await ledger.list({ tenant: 'site-b' })).rows;
    expect(recovered).toMatchObject({ verified: true, tenant: 'site-b', articleId: payloadB.article.id, status: 200 });
  });

  it('records queued deliveries, and recovers into the queue', async () => {
    const jobs: QueuedDelivery[] = [];
    const queue: DeliveryQueue = withQueueMode({
      enqueue: async (delivery) => {
        jobs.push(delivery);
      },
    });
    const ledger = memoryLedger({ keepRefused: true });
    const OLD = 'whk_ledger_queue_old_0123456789';
    const NEW = 'whk_ledger_queue_new_9876543210';
    const before = createReceiver({ token: OLD, ledger, queue, logger: false });
    expect((await before.handle(signDelivery({ token: OLD, payload: articleSyncPayload() }))).status).toBe(200);
    expect((await before.handle(signDelivery({ token: NEW, payload: articleSyncPayload() }))).status).toBe(401);
    createReceiver({ token: NEW, ledger, queue, logger: false });
    expect(await ledger.recover()).toEqual({ recovered: 1, failed: 0, unverified: 0 });
    expect(jobs).toHaveLength(2);
    await ledger.flush();
    expect((await ledger.list({ verified: true })).rows.map((row) => row.code)).toEqual(['queued', 'queued']);
  });

  it('with a token source: reads and keeps the body of a 401 that waited for the source', async () => {
    const OLD = 'whk_ledger_source_old_012345678';
    const NEW = 'whk_ledger_source_new_876543210';
    const ledger = memoryLedger({ keepRefused: true });
    const receiver = createReceiver({
      token: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [OLD];
      },
      ledger,
      logger: false,
    });
    const server = await listen(createServer(webhookHandler(receiver, {})));
    servers.push(server);
    expect(await post(server.url, signDelivery({ token: NEW, payload: articleSyncPayload() }))).toBe(401);
    await ledger.flush();
    expect((await ledger.list()).rows.map((row) => [row.status, row.kept])).toEqual([[401, true]]);

    // Without keepRefused the same request is refused on its head, its body never read.
    const plain = memoryLedger();
    const other = createReceiver({ token: async () => [OLD], ledger: plain, logger: false });
    const otherServer = await listen(createServer(webhookHandler(other, {})));
    servers.push(otherServer);
    const signed = signDelivery({ token: NEW, payload: articleSyncPayload({ article: { slug: 'not-read' } }) });
    expect(await post(otherServer.url, signed)).toBe(401);
    await plain.flush();
    const [row] = (await plain.list()).rows;
    expect(row).toMatchObject({ status: 401, slug: null, deliveryId: signed.headers['X-Service-Delivery-Id'] });
    expect(row!.receivedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(row!.kept).toBeUndefined();
  });
});
