// Signed deliveries over HTTP to receivers in workerd on durableObjectDedupStore: what the
// service's retries and re-queues do, and what the handlers (counted in the RunLog object) did.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sleep, waitFor } from './worker-client.mjs';

const IN_PROGRESS = { status: 409, body: { error: 'Delivery in progress' } };
const publishedUrl = (slug) => `https://blog.example.com/${slug}`;

/**
 * The checks through the receiver, as `[name, run]` pairs; `run` resolves to a detail line or
 * nothing, and throws when the check fails.
 *
 * @example
 * ```js
 * for (const [name, run] of deliveryChecks(worker, testing)) await run();
 * ```
 */
export function deliveryChecks(worker, { articleSyncPayload, articleTrashPayload }) {
  const sync = (id, timestamp, slug = 'post') => articleSyncPayload({ timestamp, article: { id, slug } });
  const trash = (id, timestamp) => articleTrashPayload({ timestamp, article: { id, slug: 'post' } });
  const ok = (slug) => ({ status: 200, body: { ok: true, published_url: publishedUrl(slug) } });

  const copies = (path) => async () => {
    const id = randomUUID();
    const delivery = worker.sign(sync(id, 100, 'copies-wait-300'));
    const answers = await Promise.all(Array.from({ length: 50 }, () => worker.post(path, delivery)));
    const ran = answers.filter((answer) => answer.status === 200 && !answer.body.duplicate);
    assert.deepEqual(ran, [ok('copies-wait-300')], 'exactly one copy runs the handler');
    const duplicate = { status: 200, body: { ...ok('copies-wait-300').body, duplicate: true } };
    for (const answer of answers)
      if (answer !== ran[0])
        assert.ok(isEqual(answer, IN_PROGRESS) || isEqual(answer, duplicate), JSON.stringify(answer));
    assert.deepEqual((await worker.runs(id)).runs, ['article.sync@100']);
    assert.deepEqual(await worker.post(path, delivery), duplicate, 'a later copy answers the stored answer');
    const busy = answers.filter((answer) => answer.status === 409).length;
    return `1 ran, ${busy} answered 409, ${49 - busy} answered duplicate`;
  };

  const ordering = (path) => async () => {
    const id = randomUUID();
    assert.deepEqual(await worker.deliver(path, sync(id, 100)), ok('post'));
    assert.deepEqual(await worker.deliver(path, trash(id, 200)), { status: 200, body: { ok: true } });
    const late = worker.sign(sync(id, 100));
    assert.deepEqual(await worker.post(path, late), { status: 200, body: { ok: true, stale: true } });
    assert.deepEqual(await worker.post(path, late), { status: 200, body: { ok: true, stale: true, duplicate: true } });
    assert.deepEqual(
      (await worker.runs(id)).runs,
      ['article.sync@100', 'article.trash@200'],
      'the late sync never ran',
    );
    // Equal timestamps run: order within one second cannot be known.
    assert.deepEqual(await worker.deliver(path, sync(id, 200)), ok('post'));
    assert.deepEqual(await worker.deliver(path, sync(id, 150)), { status: 200, body: { ok: true, stale: true } });
    const other = randomUUID();
    assert.deepEqual(await worker.deliver(path, sync(other, 200)), ok('post'));
    assert.deepEqual(await worker.deliver(path, sync(other, 100)), { status: 200, body: { ok: true, stale: true } });
    assert.deepEqual((await worker.runs(id)).runs, ['article.sync@100', 'article.trash@200', 'article.sync@200']);
    assert.deepEqual((await worker.runs(other)).runs, ['article.sync@200']);
  };

  const exclusion = (path) => async () => {
    const id = randomUUID();
    const deliveries = Array.from({ length: 20 }, () => worker.sign(sync(id, 300, 'burst-wait-150')));
    const answers = await Promise.all(deliveries.map((delivery) => worker.post(path, delivery)));
    for (const answer of answers)
      assert.ok(isEqual(answer, ok('burst-wait-150')) || isEqual(answer, IN_PROGRESS), JSON.stringify(answer));
    const ran = answers.filter((answer) => answer.status === 200).length;
    const log = await worker.runs(id);
    assert.equal(log.maxOverlap, 1, 'two handlers for one article overlapped');
    assert.equal(log.runs.length, ran);

    const slowId = randomUUID();
    const slow = worker.deliver(path, sync(slowId, 100, 'slow-wait-800'));
    await waitFor(
      () => worker.runs(slowId),
      (seen) => seen.running === 1,
    );
    const next = worker.sign(sync(slowId, 150));
    assert.deepEqual(await worker.post(path, next), IN_PROGRESS, 'a second delivery for the article waits');
    assert.deepEqual(await slow, ok('slow-wait-800'));
    assert.deepEqual(await worker.post(path, next), ok('post'), 'its retry runs once the first is done');
    assert.deepEqual(await worker.runs(slowId), {
      runs: ['article.sync@100', 'article.sync@150'],
      running: 0,
      maxOverlap: 1,
    });
    return `20 concurrent deliveries for one article: ${ran} ran one at a time, ${20 - ran} answered 409`;
  };

  const renewal = async () => {
    const path = '/webhook-short-lease';
    const id = randomUUID();
    const delivery = worker.sign(sync(id, 100, 'long-wait-1500'));
    const first = worker.post(path, delivery);
    await waitFor(
      () => worker.runs(id),
      (seen) => seen.running === 1,
    );
    await sleep(700); // over two 300 ms leases: only renewal keeps the claim
    assert.deepEqual(await worker.post(path, delivery), IN_PROGRESS, 'a copy after the first lease');
    assert.deepEqual(await worker.deliver(path, sync(id, 200)), IN_PROGRESS, 'another delivery for the article');
    assert.deepEqual(await first, ok('long-wait-1500'));
    assert.deepEqual(await worker.post(path, delivery), {
      status: 200,
      body: { ...ok('long-wait-1500').body, duplicate: true },
    });
    assert.deepEqual((await worker.runs(id)).runs, ['article.sync@100']);
  };

  return [
    ['50 concurrent copies of one delivery run the handler once (object per delivery id)', copies('/webhook-plain')],
    ['50 concurrent copies of one delivery run the handler once (ordering: object per article)', copies('/webhook')],
    ['50 concurrent copies of one delivery run the handler once (key-value storage backend)', copies('/webhook-kv')],
    [
      'ordering: sync t=100, trash t=200, late sync t=100 answered stale and not run; equal timestamps run',
      ordering('/webhook'),
    ],
    ['ordering on the key-value storage backend', ordering('/webhook-kv')],
    ['two deliveries for one article never overlap: the second answers 409', exclusion('/webhook')],
    ['a handler running past its lease keeps its claim by renewal (leaseMs 300, handler 1.5 s)', renewal],
  ];
}

function isEqual(actual, expected) {
  try {
    assert.deepEqual(actual, expected);
    return true;
  } catch {
    return false;
  }
}
