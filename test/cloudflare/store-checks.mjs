// The DedupStore methods of durableObjectDedupStore called one by one inside workerd, for what
// a receiver alone cannot show: leases that lapse, takeovers, release, retention and its alarm.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sleep, waitFor } from './worker-client.mjs';

/**
 * The store-level checks for one binding, as `[name, run]` pairs.
 *
 * @example
 * ```js
 * for (const [name, run] of storeChecks(worker, 'DEDUP')) await run();
 * ```
 */
export function storeChecks(worker, binding) {
  const call = async (op, claim, extra) => {
    const reply = await worker.store(binding, op, claim, extra);
    if ('thrown' in reply) throw new Error(`${op} threw: ${reply.thrown}`);
    return reply.result;
  };
  const claimed = async (claim, options) => {
    const outcome = await call('claim', claim, { options });
    assert.equal(outcome.state, 'claimed', JSON.stringify(outcome));
    return outcome.lease;
  };
  const fresh = () => ({ deliveryId: randomUUID() });
  const at = (articleId, timestamp) => ({ deliveryId: randomUUID(), order: { articleId, timestamp } });
  const short = { leaseMs: 200 };
  const label = (text) => `${binding}: ${text}`;

  return [
    [
      label('claim, in-progress, complete, then done with the stored answer; a second complete is refused'),
      async () => {
        const claim = fresh();
        const lease = await claimed(claim);
        assert.deepEqual(await call('claim', claim), { state: 'in-progress' });
        const answer = { ok: true, published_url: 'https://blog.example.com/a' };
        assert.equal(await call('complete', claim, { lease, answer }), true);
        assert.deepEqual(await call('claim', claim), { state: 'done', answer });
        assert.equal(await call('complete', claim, { lease, answer: { ok: true } }), false);
        assert.equal(await call('release', claim, { lease }), null);
        assert.deepEqual(await call('claim', claim), { state: 'done', answer }, 'release leaves a done delivery done');
      },
    ],
    [
      label('a lease that lapsed is taken over: the old lease can neither renew nor complete'),
      async () => {
        const claim = fresh();
        const first = await claimed(claim, short);
        await sleep(350);
        const second = await claimed(claim, short);
        assert.notEqual(second, first);
        assert.equal(await call('renew', claim, { lease: first, options: short }), false);
        assert.equal(await call('complete', claim, { lease: first, answer: { ok: true }, options: short }), false);
        assert.equal(await call('renew', claim, { lease: second, options: short }), true);
        assert.equal(await call('complete', claim, { lease: second, answer: { ok: true }, options: short }), true);
        assert.deepEqual(await call('claim', claim), { state: 'done', answer: { ok: true } });
      },
    ],
    [
      label('a lapsed lease nobody took still renews and completes; release frees a claim'),
      async () => {
        const claim = fresh();
        const lease = await claimed(claim, short);
        await sleep(350);
        assert.equal(await call('renew', claim, { lease, options: short }), true);
        assert.deepEqual(await call('claim', claim, { options: short }), { state: 'in-progress' });
        assert.equal(await call('complete', claim, { lease, answer: { ok: true }, options: short }), true);
        const other = fresh();
        await call('release', other, { lease: await claimed(other) });
        await claimed(other);
      },
    ],
    [
      label('ordering: stale below the mark, one delivery per article, release lets the next in'),
      async () => {
        const article = randomUUID();
        const newer = at(article, 200);
        assert.equal(await call('complete', newer, { lease: await claimed(newer), answer: { ok: true } }), true);
        const older = at(article, 100);
        assert.deepEqual(await call('claim', older), { state: 'stale', newerTimestamp: 200 });
        assert.deepEqual(await call('claim', older), { state: 'done', answer: { ok: true, stale: true } });
        const equal = at(article, 200);
        const lease = await claimed(equal);
        const later = at(article, 300);
        assert.deepEqual(await call('claim', later), { state: 'in-progress' });
        await call('release', equal, { lease });
        await claimed(later);
      },
    ],
    [
      label('ordering: an older delivery completing late never lowers the mark'),
      async () => {
        const article = randomUUID();
        const slow = at(article, 100);
        const slowLease = await claimed(slow, short);
        await sleep(350); // its Worker stalled; the article's hold lapsed
        const newer = at(article, 200);
        const lease = await claimed(newer, short);
        assert.equal(await call('complete', newer, { lease, answer: { ok: true }, options: short }), true);
        assert.equal(await call('complete', slow, { lease: slowLease, answer: { ok: true }, options: short }), true);
        assert.deepEqual(await call('claim', at(article, 150)), { state: 'stale', newerTimestamp: 200 });
      },
    ],
    [
      label('odd ids (NUL, lone surrogates, 10 KB) as delivery and article ids: each its own record (contract v3)'),
      async () => {
        const long = 'x'.repeat(10 * 1024);
        const odd = ['\u0000', 'a\u0000b', '\uD800', '\uDC00', '\uFFFD', `${long}a`, `${long}b`, '\u0001'];
        const answerFor = (i) => ({ ok: true, published_url: `https://odd.example.com/${i}` });
        for (const [i, deliveryId] of odd.entries()) {
          const claim = { deliveryId: `${deliveryId}${binding}` };
          const lease = await claimed(claim);
          assert.equal(await call('complete', claim, { lease, answer: answerFor(i) }), true, `complete #${i}`);
        }
        for (const [i, deliveryId] of odd.entries()) {
          const replay = await call('claim', { deliveryId: `${deliveryId}${binding}` });
          assert.deepEqual(replay, { state: 'done', answer: answerFor(i) }, `replay of id #${i}`);
        }
        for (const [i, articleId] of odd.entries()) {
          const lease = await claimed(at(`${articleId}${i}`, 200));
          assert.ok(lease, `article #${i}`);
        }
        // Lone surrogates of one article never meet another's mark.
        const marked = at('\uD800mark', 300);
        assert.equal(await call('complete', marked, { lease: await claimed(marked), answer: { ok: true } }), true);
        assert.equal((await call('claim', at('\uDC00mark', 100))).state, 'claimed');
        assert.equal((await call('claim', at('\uD800mark', 100))).state, 'stale');
      },
    ],
  ];
}

/**
 * Checks that hold for the package as a whole rather than per backend: retention by alarm,
 * and the errors a misconfigured Worker gets.
 *
 * @example
 * ```js
 * for (const [name, run] of retentionChecks(worker)) await run();
 * ```
 */
export function retentionChecks(worker) {
  const options = { leaseMs: 200, retentionMs: 500 };
  const call = (op, claim, extra) => worker.store('DEDUP_INSPECTED', op, claim, { options, ...extra });
  const forgotten = (name) =>
    waitFor(
      () => worker.inspect(name),
      (seen) => seen.keys.length === 0 && seen.alarm === null,
      { timeoutMs: 15_000 },
    );

  return [
    [
      'retention: the alarm deletes a done delivery, and the article mark, once retentionMs has passed',
      async () => {
        const claim = { deliveryId: randomUUID() };
        const { result } = await call('claim', claim);
        await call('complete', claim, { lease: result.lease, answer: { ok: true } });
        const stored = await worker.inspect(`delivery:${claim.deliveryId}`);
        assert.deepEqual(stored.keys, [`id:${claim.deliveryId}`]);
        assert.equal(typeof stored.alarm, 'number', 'an object with something stored has an alarm');
        await forgotten(`delivery:${claim.deliveryId}`);
        assert.equal((await call('claim', claim)).result.state, 'claimed', 'a delivery past retention runs again');

        const article = randomUUID();
        const ordered = { deliveryId: randomUUID(), order: { articleId: article, timestamp: 200 } };
        const held = await call('claim', ordered);
        await call('complete', ordered, { lease: held.result.lease, answer: { ok: true } });
        assert.deepEqual((await worker.inspect(`article:${article}`)).keys.sort(), [
          `id:${ordered.deliveryId}`,
          'mark',
        ]);
        await forgotten(`article:${article}`);
        const older = { deliveryId: randomUUID(), order: { articleId: article, timestamp: 100 } };
        assert.equal((await call('claim', older)).result.state, 'claimed', 'the mark is forgotten with its retention');
      },
    ],
    [
      'a missing binding, a binding to another class and a bad option each fail with the fix',
      async () => {
        const claim = { deliveryId: randomUUID() };
        assert.match((await worker.store('MISSING', 'claim', claim)).thrown ?? '', /pass a Durable Object namespace/);
        assert.match((await worker.store('RUNS', 'claim', claim)).thrown ?? '', /class_name WebhookDedupObject/);
        const zero = await worker.store('DEDUP', 'claim', claim, { options: { leaseMs: 0 } });
        assert.match(zero.thrown ?? '', /leaseMs must be a positive number/);
      },
    ],
  ];
}
