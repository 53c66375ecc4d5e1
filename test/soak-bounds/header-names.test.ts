// Issue 49 item 5: the cache of header names already lower case (src/input/headers.ts) stays
// bounded when every request brings a header name never seen before.

import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { growthAfterWarmup } from './retained.js';

describe('the header-name cache under a million distinct header names', () => {
  it('keeps no more after 100,000 names than after 1,000,000', async () => {
    const receiver = createReceiver({ token: 'soak-bounds-token', logger: false });
    // Ten new names per request, so a million names cost 100,000 requests. Each is refused at
    // the token (401): what is measured is what reading its headers kept.
    const { growth, bytesPerKey } = await growthAfterWarmup({ total: 100_000, warmup: 10_000 }, (i) => {
      const headers: Record<string, string> = { authorization: 'Bearer wrong' };
      for (let k = 0; k < 10; k++) headers[`x-soak-${i}-${k}`] = '1';
      return receiver
        .verify({ headers, body: '{}' })
        .catch((error: { status?: number }) => expect(error.status).toBe(401));
    });
    // A name kept per request would be ~50 bytes each: 45 MB over the 900,000 after the warm-up.
    expect(bytesPerKey / 10).toBeLessThan(2);
    expect(growth).toBeLessThan(2 * 1024 * 1024);
  }, 120_000);
});
