import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Tenant, type WebhookEvent } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import type { RunningServer } from '../helpers/listen.js';
import { adapters } from '../adapters/servers.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const sites: Tenant[] = [
  { id: 'site-1', token: 'adapter-tenant-one-0123456789', profileId: 'prof-1' },
  { id: 'site-2', token: 'adapter-tenant-two-9876543210', profileId: 'prof-2' },
];
const byHash = new Map(sites.map((site) => [sha256(site.token as string), site]));
const entries = Object.entries(adapters);

describe('every adapter in tenant mode: the tenant reaches the handler, a forged profile is 403 on the wire', () => {
  const seen: Record<string, (string | undefined)[]> = {};
  let servers: Record<string, RunningServer>;
  beforeAll(async () => {
    const started = await Promise.all(
      entries.map(async ([name, start]) => {
        seen[name] = [];
        const receiver = createReceiver({ tenants: (hash) => byHash.get(hash), logger: false });
        const handlers = { 'article.sync': (event: WebhookEvent) => void seen[name]!.push(event.tenant?.id) };
        return [name, await start(receiver, handlers)] as const;
      }),
    );
    servers = Object.fromEntries(started);
  });
  afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

  const post = async (server: RunningServer, site: Tenant, profileId: string) => {
    const payload = articleSyncPayload({ profile: { id: profileId, domain: 'x.example.com' } });
    const { headers, body } = signDelivery({ token: site.token as string, payload, deliveryId: 'same-id-for-both' });
    const response = await fetch(`${server.url}/webhook`, { method: 'POST', headers, body });
    return { status: response.status, body: await response.json() };
  };

  it.each(entries.map(([name]) => name))('%s', async (name) => {
    const server = servers[name]!;
    expect(await post(server, sites[0]!, 'prof-1')).toEqual({ status: 200, body: { ok: true } });
    // The same delivery id from another site is that site's own delivery, not a duplicate.
    expect(await post(server, sites[1]!, 'prof-2')).toEqual({ status: 200, body: { ok: true } });
    expect(await post(server, sites[0]!, 'prof-2')).toEqual({ status: 403, body: { error: 'Profile mismatch' } });
    expect(seen[name]).toEqual(['site-1', 'site-2']);
  });
});
