import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type Tenant } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { eventRecorder } from '../helpers/event-recorder.js';

// Issue 45, defect 6: in tenant mode, kept junk used up the 50 lookups a second on every pass
// (in the store's own order), so a real kept delivery listed after it was never looked up.
// Passes now ask about each distinct token hash, least recently asked first, within the cap.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const OLD = 'whk_kept_lookups_site_old';
const NEW = 'whk_kept_lookups_site_new';
const JUNK = 200;

describe('kept requests in tenant mode', () => {
  it(`look up every kept token hash within a bounded number of passes: ${JUNK} junk hashes, then 1 real`, async () => {
    const site: Tenant = { id: 'site', token: OLD, profileId: 'prof', domain: 'site.example.com' };
    const sites = new Map<string, Tenant>([[sha256(OLD), site]]);
    const dedup = memoryDedupStore();
    const receiver = createReceiver({
      tenants: (hash) => sites.get(hash),
      rotatingUntil: Date.now() + 3_600_000,
      tokenCacheMs: 50,
      dedup,
      logger: false,
    });
    // Junk kept before the real delivery (by another instance, or a flood over the last minutes).
    const body = btoa(JSON.stringify({ event: 'test' }));
    for (let i = 0; i < JUNK; i++) {
      const kept = await dedup.kept!.keep(
        {
          id: randomUUID(),
          tokenSha256: sha256(`junk-${i}-${randomUUID()}`),
          headers: { 'x-service-timestamp': '1', 'x-service-signature': 'sha256=00', 'x-service-delivery-id': `j${i}` },
          body,
          receivedAt: Date.now(),
        },
        { maxCount: 1000, maxBytes: 1 << 20, until: Date.now() + 3_600_000 },
      );
      expect(kept).toBe(true);
    }
    const { seen, until, handlers } = eventRecorder();
    const real = signDelivery({
      token: NEW,
      payload: articleSyncPayload({ profile: { id: 'prof', domain: 'site.example.com' } }),
    });
    expect((await receiver.handle(real, handlers)).status).toBe(503);
    expect(await dedup.kept!.list()).toHaveLength(JUNK + 1);
    // The site's new token reaches the resolver: the kept delivery runs with no new request.
    sites.set(sha256(NEW), { ...site, token: [NEW, OLD] });
    await Promise.race([until(1), new Promise((resolve) => setTimeout(resolve, 8000))]);
    expect(seen.map((event) => event.deliveryId)).toEqual([real.headers['X-Service-Delivery-Id']]);
    expect(seen[0]!.tenant).toEqual({ id: 'site' });
  }, 20_000);
});
