import { expect } from 'vitest';
import { createReceiver, type Ledger } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

/**
 * The unplanned rotation, across two instances sharing one ledger store: the first still has
 * the old token and refuses (401, body kept), the second has the new one and recovers the
 * refused delivery once: its handler runs, the rows say what happened, a second recover()
 * finds nothing. `ledgerOn()` makes a ledger with `keepRefused: true` on the shared store.
 */
export async function expectRecoveredAcrossInstances(ledgerOn: () => Ledger): Promise<void> {
  const oldLedger = ledgerOn();
  const stale = createReceiver({ token: 'old-token-before-regenerate', ledger: oldLedger });
  const payload = articleSyncPayload({ article: { slug: 'published-at-10-02' } });
  const delivery = signDelivery({ token: 'new-token-after-regenerate', payload });
  expect((await stale.handle(delivery, { 'article.sync': () => {} })).status).toBe(401);
  await oldLedger.flush();

  const ledger = ledgerOn();
  const ran: string[] = [];
  const fixed = createReceiver({ token: 'new-token-after-regenerate', ledger });
  const handlers = { 'article.sync': ({ article }: { article: { slug: string } }) => void ran.push(article.slug) };
  // The fixed instance's handlers are known to recover() from a delivery it handled.
  expect(
    (await fixed.handle(signDelivery({ token: 'new-token-after-regenerate', payload: articleSyncPayload() }), handlers))
      .status,
  ).toBe(200);
  expect(await ledger.recover()).toEqual({ recovered: 1, failed: 0, unverified: 0 });
  expect(ran).toContain('published-at-10-02');
  expect(await ledger.recover()).toEqual({ recovered: 0, failed: 0, unverified: 0 });
  await ledger.flush();
  const refused = (await ledger.list({ status: 401 })).rows;
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ verified: false, slug: 'published-at-10-02', kept: true });
  const recovered = (await ledger.list({ article: payload.article.id })).rows;
  expect(recovered.map((row) => [row.status, row.verified, row.recoveredFrom ?? null])).toEqual([
    [200, true, refused[0]!.id],
    [401, false, null],
  ]);
}
