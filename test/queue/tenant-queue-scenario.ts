import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  createReceiver,
  type DedupStore,
  type DeliveryQueue,
  type QueueWorker,
  type Tenant,
  tenantScoped,
  type WebhookEvent,
} from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { until } from './queue-helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const siteA: Tenant = { id: 'site-a', token: 'whk_queue_site_a', profileId: 'prof-a', domain: 'a.example.com' };
const siteB: Tenant = { id: 'site-b', token: 'whk_queue_site_b', profileId: 'prof-b', domain: 'b.example.com' };
const byHash = new Map([siteA, siteB].map((tenant) => [sha256(tenant.token as string), tenant]));

/** What the scenario needs of one engine. */
export interface TenantQueueRig {
  /** A `DeliveryQueue` on a queue of its own for this scenario (the same one on every call). */
  queue(): DeliveryQueue;
  /** Starts a worker on that queue with these options. */
  work(options: {
    handlers: Record<string, (event: WebhookEvent) => void>;
    dedup: DedupStore;
    ordering: true;
    onStale: (info: { deliveryId: string; event: WebhookEvent }) => void;
  }): QueueWorker;
  /** The data of the engine's job for this job key (`tenantScoped(tenant, deliveryId)`), if there is one. */
  jobData(key: string): Promise<{ deliveryId: string; tenant?: string } | undefined>;
  /** The worker's dedup store, fresh for this scenario. */
  store(): Promise<DedupStore> | DedupStore;
}

/**
 * Contract v4 in queue mode: two sites enqueue the same delivery id (two jobs, each carrying
 * its tenant), workers hand handlers `event.tenant`, and the worker's dedup and ordering are
 * per tenant: site A's future-dated trash of article `p` makes A's older sync stale, never B's.
 */
export async function tenantsInQueueMode(rig: TenantQueueRig): Promise<void> {
  const receiver = createReceiver({ tenants: (hash) => byHash.get(hash), queue: rig.queue(), logger: false });
  const now = Math.floor(Date.now() / 1000);
  const send = (tenant: Tenant, type: 'sync' | 'trash', deliveryId: string, timestamp: number) => {
    const profile = { id: tenant.profileId!, domain: tenant.domain! };
    const content = { timestamp, article: { id: 'p' }, profile };
    const payload = type === 'sync' ? articleSyncPayload(content) : articleTrashPayload(content);
    return receiver.handle(signDelivery({ token: tenant.token as string, deliveryId, payload }));
  };
  const queued = { status: 200, body: { ok: true, queued: true } };
  const shared = `shared-${randomUUID()}`;

  const runs: string[] = [];
  const stale: string[] = [];
  const record = (event: WebhookEvent) => void runs.push(`${event.tenant?.id}:${event.type}:${event.deliveryId}`);
  rig.work({
    handlers: { 'article.sync': record, 'article.trash': record },
    dedup: await rig.store(),
    ordering: true,
    onStale: ({ deliveryId, event }) => void stale.push(`${event.tenant?.id}:${deliveryId}`),
  });

  // Site A first, alone: a trash of article p dated 200 s ahead, under the shared delivery id.
  expect(await send(siteA, 'trash', shared, now + 200)).toEqual(queued);
  await until("site A's trash to run", () => runs.length === 1);
  // Site B, same delivery id, same article id, older timestamp: its own job, and it runs.
  expect(await send(siteB, 'sync', shared, now)).toEqual(queued);
  const jobA = await rig.jobData(tenantScoped('site-a', shared));
  const jobB = await rig.jobData(tenantScoped('site-b', shared));
  expect([jobA, jobB]).toEqual([
    expect.objectContaining({ deliveryId: shared, tenant: 'site-a' }),
    expect.objectContaining({ deliveryId: shared, tenant: 'site-b' }),
  ]);
  expect(await rig.jobData(shared), 'no job under the bare delivery id').toBeUndefined();
  await until("site B's sync to run", () => runs.length === 2);
  // Site A's own older sync of p is stale for A.
  const late = `late-${randomUUID()}`;
  expect(await send(siteA, 'sync', late, now)).toEqual(queued);
  await until("site A's late sync to be judged stale", () => stale.length === 1);

  expect(runs).toEqual([`site-a:article.trash:${shared}`, `site-b:article.sync:${shared}`]);
  expect(stale).toEqual([`site-a:${late}`]);
  // Each site's retry of the shared id is its own duplicate.
  const duplicate = { status: 200, body: { ok: true, queued: true, duplicate: true } };
  expect(await send(siteA, 'trash', shared, now + 200)).toEqual(duplicate);
  expect(await send(siteB, 'sync', shared, now)).toEqual(duplicate);
}
