#!/usr/bin/env node
// `node test/queue/cloudflare-tenants.mjs`: tenant mode in queue mode on Cloudflare Queues in
// workerd (miniflare, no nodejs_compat). Two sites send the same delivery id and article id:
// two messages, each carrying its tenant (a large body by R2 reference too); the consumer's
// handlers see `event.tenant`; its dedup and ordering claims are per tenant; and a copy of an
// out-of-line message that arrives after its body was deleted is found done under its tenant.
// Exits 0 only when all passed.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { onNode22, runChecks, sleep, startQueueWorker } from './cloudflare-harness.mjs';

onNode22(import.meta.url, 'cloudflare-tenants');
const TOKEN_A = `whk_a_${randomBytes(12).toString('hex')}`;
const TOKEN_B = `whk_b_${randomBytes(12).toString('hex')}`;
const worker = await startQueueWorker({ entry: 'cloudflare-tenants-worker.ts', vars: { TOKEN_A, TOKEN_B } });
console.log(`cloudflare-tenants: workerd ${worker.workerd} (miniflare), R2 bucket bound, package from the sources`);
const { articleSyncPayload, articleTrashPayload, signDelivery } = worker.testing;

const sites = {
  a: { token: TOKEN_A, profile: { id: 'prof-a', domain: 'a.example.com' } },
  b: { token: TOKEN_B, profile: { id: 'prof-b', domain: 'b.example.com' } },
};
const post = async (site, payload, deliveryId) => {
  const signed = signDelivery({ token: sites[site].token, payload, deliveryId });
  const response = await fetch(new URL('/webhook', worker.url), {
    method: 'POST',
    headers: signed.headers,
    body: signed.body,
  });
  return { status: response.status, body: await response.json() };
};
const queued = { status: 200, body: { ok: true, queued: true } };
const now = Math.floor(Date.now() / 1000);
const shared = `shared-${randomUUID()}`;
const articleId = `p-${randomUUID()}`;
// Past the queue's message limit: cloudflareQueue puts it in R2 and sends a reference.
const bigHtml = `<p>${'b'.repeat(200_000)}</p>`;
const seen = (line) => async () => (await worker.count(line)) === 1;

await runChecks(
  'cloudflare-tenants',
  [
    [
      'two sites, one delivery id and article id: two messages with their tenant, a large one by R2 reference',
      async () => {
        const trash = articleTrashPayload({
          timestamp: now + 200,
          article: { id: articleId },
          profile: sites.a.profile,
        });
        assert.deepEqual(await post('a', trash, shared), queued);
        await worker.until("site A's trash", seen(`run site-a article.trash ${shared}`));
        const sync = articleSyncPayload({
          timestamp: now,
          article: { id: articleId, content_html: bigHtml },
          profile: sites.b.profile,
        });
        assert.deepEqual(await post('b', sync, shared), queued);
        // Not stale: site A's newer mark on the same article id is site A's alone.
        await worker.until(
          "site B's sync, body read back from R2",
          seen(`run site-b article.sync ${shared} ${bigHtml.length}`),
        );
        const log = await worker.readLog();
        assert.equal(log.filter((line) => line === `sent site-a ${shared} inline`).length, 1);
        assert.equal(log.filter((line) => line.startsWith(`sent site-b ${shared} ref `)).length, 1);
      },
    ],
    [
      "site A's older sync of that article is stale for site A",
      async () => {
        const late = `late-${randomUUID()}`;
        const sync = articleSyncPayload({ timestamp: now, article: { id: articleId }, profile: sites.a.profile });
        assert.deepEqual(await post('a', sync, late), queued);
        await worker.until("site A's late sync judged stale", seen(`stale site-a ${late}`));
        assert.equal(await worker.count(`run site-a article.sync ${late} 0`), 0);
      },
    ],
    [
      "a copy of site B's R2 message after its body was deleted is found done under site B: no rerun, no dead letter",
      async () => {
        const line = (await worker.readLog()).find((entry) => entry.startsWith(`sent site-b ${shared} ref `));
        const message = JSON.parse(line.slice(`sent site-b ${shared} ref `.length));
        assert.equal(message.tenant, 'site-b');
        assert.ok(message.bodyRef, 'the message holds a reference');
        await worker.until(
          'the R2 copy deleted',
          async () => !(await worker.bodies()).some((key) => key.includes(shared)),
        );
        await worker.call('/send', { messages: [message] });
        // A later delivery on the same queue marks when the copy has had its turn.
        const marker = `marker-${randomUUID()}`;
        const sync = articleSyncPayload({ timestamp: now, article: { id: randomUUID() }, profile: sites.b.profile });
        assert.deepEqual(await post('b', sync, marker), queued);
        await worker.until(
          'the marker delivery',
          seen(`run site-b article.sync ${marker} ${sync.article.content_html.length}`),
        );
        // Only to give a wrongly dead-lettered copy (its own queue) the time to show.
        await sleep(1500);
        const log = await worker.readLog();
        assert.deepEqual(
          log.filter((entry) => entry.startsWith(`dead `)),
          [],
        );
        assert.equal(log.filter((entry) => entry.startsWith(`run site-b article.sync ${shared} `)).length, 1);
      },
    ],
  ],
  worker.stop,
);
