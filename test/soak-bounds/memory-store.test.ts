// Issue 49 item 5: `memoryDedupStore` holds at most `maxEntries` delivery ids, whatever the
// number of distinct ids that pass through it.

import { describe, expect, it } from 'vitest';
import { type ClaimOutcome, memoryDedupStore } from 'webhook-cms-receiver';
import { growthAfterWarmup } from './retained.js';

describe('memoryDedupStore under a million distinct delivery ids', () => {
  it('keeps no more after 100,000 ids than after 1,000,000 (maxEntries 10,000)', async () => {
    const store = memoryDedupStore({ maxEntries: 10_000 });
    const { growth, bytesPerKey } = await growthAfterWarmup({ total: 1_000_000, warmup: 100_000 }, (i) => {
      const claim = { deliveryId: `delivery-${i}` };
      const outcome = store.claim(claim) as ClaimOutcome;
      if (outcome.state !== 'claimed') throw new Error(`delivery-${i} was not claimed: ${outcome.state}`);
      return store.complete(claim, outcome.lease, { ok: true });
    });
    // An id kept per delivery would be its key, its lease and its answer: >100 bytes each.
    expect(bytesPerKey).toBeLessThan(4);
    expect(growth).toBeLessThan(4 * 1024 * 1024);
    // The newest ids are still there: bounded by dropping the oldest, not by refusing new ones.
    const again = store.claim({ deliveryId: 'delivery-999999' }) as ClaimOutcome;
    expect(again.state).toBe('done');
  }, 120_000);
});
