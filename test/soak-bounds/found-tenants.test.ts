// Issue 49 item 5: tenant mode's found tenants (src/receiver/tenants/tenant-cache.ts, 100,000
// at most) and the warn-once-a-minute usage of older tokens (src/receiver/token-usage.ts, 1,000
// tenants at most) stay bounded when a million sites each deliver once, signed with their
// second token. About 210 µs per delivery on a loaded 2-core machine (212 s for the million):
// it runs with SOAK_BOUNDS_FULL=1, and SOAK_BOUNDS_KEYS sets a smaller count to try it.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { growthAfterWarmup } from './retained.js';

const total = Number(process.env.SOAK_BOUNDS_KEYS || 1_000_000);

describe.runIf(process.env.SOAK_BOUNDS_FULL === '1')('a million sites, each delivering once', () => {
  it('keeps no more found tenants and token usage after the caches are full', async () => {
    let presented = '';
    const receiver = createReceiver({
      // Each site's first token is one it no longer signs with: every delivery is token #1.
      tenants: () => ({ id: presented, token: [`retired-${presented}`, presented] }),
      tenantLookupsPerSecond: 1e9,
      dedup: false,
      logger: false,
    });
    const statuses = new Map<number, number>();
    // Past 100,000 found sites the cache is full; the warm-up passes that.
    const warmup = Math.min(150_000, Math.floor(total * 0.75));
    const { growth, bytesPerKey } = await growthAfterWarmup({ total, warmup }, async (i) => {
      presented = `site-${i}`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const body = `{"event":"test","timestamp":${timestamp},"article":null,"profile":null}`;
      const signature = createHmac('sha256', presented).update(`${timestamp}.${body}`).digest('hex');
      const headers = {
        authorization: `Bearer ${presented}`,
        'x-service-timestamp': timestamp,
        'x-service-signature': `sha256=${signature}`,
      };
      const { status } = await receiver.handle({ headers, body }, {});
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    expect([...statuses.keys()]).toEqual([200]);
    // A site kept per delivery would be its hash, its prepared tokens and a usage entry.
    expect(bytesPerKey).toBeLessThan(8);
    expect(growth).toBeLessThan(8 * 1024 * 1024);
  }, 900_000);
});
