#!/usr/bin/env node
// `node test/queue/cloudflare-faults.mjs`: the fault rows of Cloudflare Queues that workerd
// (miniflare, no nodejs_compat) can run: poison messages (no delivery, a body that cannot be
// read back, a handler that always throws, at the message limit and by reference) are
// dead-lettered with their reason and nothing else is lost; a message whose claim another
// worker holds is deferred past its attempts and still runs once; 40 concurrent copies of one delivery
// have one effect with durableObjectDedupStore; a consumer that throws mid-batch loses none of
// its batch. Exits 0 only when all passed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onNode22, runChecks, sleep, startQueueWorker } from './cloudflare-harness.mjs';

onNode22(import.meta.url, 'cloudflare-faults');
// Five attempts: a copy that met another copy's claim is retried, not dead-lettered.
const worker = await startQueueWorker({ entry: 'cloudflare-worker.ts', maxBatchSize: 10, vars: { ATTEMPTS: '5' } });
console.log(`cloudflare-faults: workerd ${worker.workerd} (miniflare), R2 bucket bound, package from the sources`);
const limit = await (await fetch(new URL('/limit', worker.url))).json();
const { articleSyncPayload, signDelivery } = worker.testing;
const { count, until, readLog } = worker;

const sync = (slug, article = {}) => articleSyncPayload({ article: { id: randomUUID(), ...article, slug } });
/** The QueuedDelivery the receiver would enqueue for `payload`. */
const queued = (payload, deliveryId = randomUUID()) => ({
  body: signDelivery({ token: worker.token, payload, deliveryId }).body,
  deliveryId,
  timestamp: payload.timestamp,
  event: payload.event,
  tokenIndex: 0,
  receivedAt: Date.now(),
});
/** A payload whose body makes the inline message exactly `bytes` long. */
const ofMessageBytes = (slug, deliveryId, bytes) => {
  const base = sync(slug, { content_html: '' });
  const size = Buffer.byteLength(JSON.stringify(queued(base, deliveryId)));
  return sync(slug, { id: base.article.id, content_html: 'x'.repeat(bytes - size) });
};
const deadLines = async () => (await readLog()).filter((line) => line.startsWith('dead '));
const reasonOf = async (name) =>
  (await readLog()).find((line) => line.startsWith(`reason ${name} `))?.slice(8 + name.length);

await runChecks(
  'cloudflare-faults',
  [
    [
      'poison: messages that are no delivery are dead-lettered at once with the reason, never run',
      async () => {
        const notJson = { ...queued(sync('poison')), body: '{"event": "article.sync", ' };
        const notDelivery = { deliveryId: randomUUID(), hello: 'world' };
        await worker.call('/send', { messages: [notJson, notDelivery, 'just a string'] });
        await until('three dead letters', async () => (await deadLines()).length >= 3);
        assert.match(await reasonOf(notJson.deliveryId), /not valid JSON/);
        assert.match(await reasonOf(notDelivery.deliveryId), /not a delivery/);
        assert.match(await reasonOf('original:"just a string"'), /not a delivery/);
        assert.equal(await count(`run ${notJson.deliveryId}`), 0);
      },
    ],
    [
      'poison: a reference to a body that is not in R2 is dead-lettered with the reason',
      async () => {
        const { body: _, ...rest } = queued(sync('gone'));
        const bodyRef = { key: `webhook-bodies/${rest.deliveryId}/missing`, bytes: 10, sha256: '00' };
        await worker.call('/send', { messages: [{ ...rest, bodyRef }] });
        await until('the dead letter', async () => (await count(`dead ${rest.deliveryId}`)) === 1);
        assert.match(await reasonOf(rest.deliveryId), /no longer in the R2 bucket/);
      },
    ],
    [
      'a handler that always throws, at the message limit and past it: dead-lettered with the reason, body kept',
      async () => {
        const atLimit = randomUUID();
        const past = randomUUID();
        assert.equal((await worker.post(ofMessageBytes('always-fails', atLimit, limit), atLimit)).status, 200);
        assert.equal((await worker.post(ofMessageBytes('always-fails', past, limit + 1), past)).status, 200);
        await until(
          'two dead letters',
          async () => (await count(`dead ${atLimit}`)) + (await count(`dead ${past}`)) === 2,
        );
        assert.equal(await count(`run ${atLimit}`), 5);
        assert.equal(await reasonOf(atLimit), 'always fails');
        assert.equal(await reasonOf(past), 'always fails');
        // At the limit the reason no longer fits beside the body: the dead letter holds it by reference.
        const keys = await worker.bodies();
        for (const id of [atLimit, past]) {
          const ref = (await readLog()).find((line) => line.startsWith(`dead-ref ${id} `))?.split(' ')[2];
          assert.ok(ref && keys.includes(ref), `the dead letter of ${id} refers to a body kept in R2: ${ref}`);
        }
      },
    ],
    [
      '40 concurrent posts of one large delivery: all answered, one effect, no dead letter, no R2 copy left',
      async () => {
        const id = randomUUID();
        const payload = ofMessageBytes('sized-copies', id, limit + 5000);
        const signed = signDelivery({ token: worker.token, payload, deliveryId: id });
        const answers = await Promise.all(
          Array.from({ length: 40 }, () =>
            fetch(new URL('/webhook', worker.url), { method: 'POST', headers: signed.headers, body: signed.body }),
          ),
        );
        const statuses = answers.map((answer) => answer.status);
        assert.ok(statuses.includes(200) && statuses.every((s) => s === 200 || s === 409), statuses.join(' '));
        await until('the effect', async () => (await count(`effect ${id}`)) === 1);
        await until('no R2 copy', async () => !(await worker.bodies()).some((key) => key.includes(id)));
        await sleep(3000);
        assert.equal(await count(`effect ${id}`), 1);
        assert.equal(await count(`dead ${id}`), 0);
      },
    ],
    [
      'a claim held by another worker defers the message past its attempts: run once, not dead-lettered',
      async () => {
        const delivery = queued(sync('held'));
        assert.deepEqual(await worker.call('/hold', { delivery }), { held: true });
        await worker.call('/send', { messages: [delivery] });
        // Seven deferrals with five attempts allowed: each would have been one of them.
        await until(
          'seven deferrals, or a dead letter',
          async () =>
            (await count(`deferred ${delivery.deliveryId}`)) >= 7 || (await count(`dead ${delivery.deliveryId}`)) > 0,
          120_000,
        );
        assert.equal(await count(`dead ${delivery.deliveryId}`), 0, await reasonOf(delivery.deliveryId));
        await worker.call('/release', { delivery });
        await until('the effect', async () => (await count(`effect ${delivery.deliveryId}`)) === 1, 120_000);
        await sleep(3000);
        assert.equal(await count(`run ${delivery.deliveryId}`), 1);
        assert.equal(await count(`effect ${delivery.deliveryId}`), 1);
        assert.equal(await count(`dead ${delivery.deliveryId}`), 0);
      },
    ],
    [
      'a handler that always throws, deferred first: dead-lettered after its 5 attempts, counted across copies',
      async () => {
        const delivery = queued(sync('always-fails'));
        assert.deepEqual(await worker.call('/hold', { delivery }), { held: true });
        await worker.call('/send', { messages: [delivery] });
        await until('three deferrals', async () => (await count(`deferred ${delivery.deliveryId}`)) >= 3, 120_000);
        await worker.call('/release', { delivery });
        await until('the dead letter', async () => (await count(`dead ${delivery.deliveryId}`)) === 1, 120_000);
        assert.equal(await count(`run ${delivery.deliveryId}`), 5);
        assert.equal(await reasonOf(delivery.deliveryId), 'always fails');
        assert.match(
          (await readLog()).find((line) => line.startsWith(`dead-attempts ${delivery.deliveryId} `)) ?? '',
          / 5$/,
        );
      },
    ],
    [
      '40 copies of one queue message, as redeliveries: one run, one effect, no dead letter',
      async () => {
        const delivery = queued(sync('copies'));
        await worker.call('/copies', { delivery, copies: 40 });
        await until('the effect', async () => (await count(`effect ${delivery.deliveryId}`)) === 1);
        await sleep(6000);
        assert.equal(await count(`run ${delivery.deliveryId}`), 1);
        assert.equal(await count(`effect ${delivery.deliveryId}`), 1);
        assert.equal(await count(`dead ${delivery.deliveryId}`), 0);
      },
    ],
    [
      '40 copies of one message whose body is in R2, as redeliveries: one effect, no dead letter, R2 copy gone',
      async () => {
        const id = randomUUID();
        const delivery = queued(ofMessageBytes('sized-r2-copies', id, limit + 1000), id);
        const { message } = await worker.call('/copies', { delivery, copies: 40 });
        assert.ok(
          message.bodyRef && message.articleId,
          `sent by reference, with its article: ${JSON.stringify(message)}`,
        );
        await until('the effect', async () => (await count(`effect ${id}`)) === 1);
        await until('no R2 copy', async () => !(await worker.bodies()).some((key) => key.includes(id)));
        // Copies that come after the body was deleted are answered by the dedup store, not dead-lettered.
        await sleep(6000);
        assert.equal(await count(`effect ${id}`), 1);
        assert.equal(await count(`dead ${id}`), 0, await reasonOf(id));
      },
    ],
    [
      'a consumer that throws mid-batch, beside a failing and a poison message: none of the batch is lost',
      async () => {
        const good = Array.from({ length: 7 }, () => queued(sync('batch')));
        const failOnce = queued(sync('fail-once'));
        const thrower = queued(sync('throw-batch'));
        const poison = { deliveryId: randomUUID(), nonsense: true };
        await worker.call('/send', { messages: [...good.slice(0, 3), failOnce, thrower, poison, ...good.slice(3)] });
        for (const { deliveryId } of [...good, failOnce, thrower]) {
          await until(`the effect of ${deliveryId}`, async () => (await count(`effect ${deliveryId}`)) === 1);
        }
        await until('the poison dead-lettered', async () => (await count(`dead ${poison.deliveryId}`)) === 1);
        assert.ok((await count('threw-batch')) >= 1, 'the consumer threw mid-batch');
        await sleep(3000);
        for (const { deliveryId } of [...good, failOnce, thrower]) {
          assert.equal(await count(`effect ${deliveryId}`), 1);
          assert.equal(await count(`dead ${deliveryId}`), 0);
        }
      },
    ],
  ],
  worker.stop,
);
