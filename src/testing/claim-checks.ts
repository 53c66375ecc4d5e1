import type { StoredAnswer } from '../dedup/store.js';
import { expectOutcome, expectThat, leaseOf, newId, type StoreCheck, shown, sleep } from './store-check.js';

const ANSWER: StoredAnswer = { ok: true, published_url: 'https://blog.example.com/store-check' };

const ATOMIC_CLAIM =
  'Make claim one atomic, conditional write: store the id only if it is absent or its lease ran out (Redis `SET key value NX PX leaseMs`, SQL `INSERT … ON CONFLICT`, DynamoDB `attribute_not_exists`), and check that your client or wrapper passes the condition on: one that drops it (Powertools #5716, a Redis wrapper without NX) lets every copy run.';

/** Claim, replay, release and leases: what every `DedupStore` must do. */
export const CLAIM_CHECKS: StoreCheck[] = [
  {
    name: 'claim: a new delivery id is claimed, with a lease',
    fix: "Answer `{ state: 'claimed', lease }` to the first claim of an id, with a new random lease string.",
    async run({ fresh }) {
      leaseOf(await (await fresh()).claim({ deliveryId: newId() }), 'first claim');
    },
  },
  {
    name: 'claim: a second claim of a held id is refused (in-progress)',
    fix: ATOMIC_CLAIM,
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      leaseOf(await store.claim(claim), 'first claim');
      expectOutcome(await store.claim(claim), { state: 'in-progress' }, 'second claim while the first holds');
    },
  },
  {
    name: 'claim: exactly one of many concurrent claims of one id wins',
    fix: ATOMIC_CLAIM,
    async run({ fresh, concurrentClaims }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      const outcomes = await Promise.all(Array.from({ length: concurrentClaims }, () => store.claim(claim)));
      const won = outcomes.filter((outcome) => outcome.state === 'claimed').length;
      const refused = outcomes.filter((outcome) => outcome.state === 'in-progress').length;
      expectThat(
        won === 1 && refused === concurrentClaims - 1,
        `${concurrentClaims} concurrent claims: ${won} claimed and ${refused} in-progress, expected 1 and ${concurrentClaims - 1}`,
      );
    },
  },
  {
    name: 'complete: the answer is replayed to every later claim',
    fix: "On complete, record the id as done with the answer, and answer later claims `{ state: 'done', answer }`.",
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      const completed = await store.complete(claim, leaseOf(await store.claim(claim), 'claim'), ANSWER);
      expectThat(completed !== false, 'complete with the current lease answered false');
      for (const what of ['claim after complete', 'another claim after complete'])
        expectOutcome(await store.claim(claim), { state: 'done', answer: ANSWER }, what);
    },
  },
  {
    name: 'release: a released id is claimed again',
    fix: 'On release with the current lease, delete the claim, so the service’s retry runs the delivery.',
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      await store.release(claim, leaseOf(await store.claim(claim), 'claim'));
      leaseOf(await store.claim(claim), 'claim after release');
    },
  },
  {
    name: 'leases: every claim gets its own lease',
    fix: 'Make each lease a new random value (such as `crypto.randomUUID()`), never the id or a constant.',
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      const first = leaseOf(await store.claim(claim), 'claim');
      await store.release(claim, first);
      const leases = [first, leaseOf(await store.claim(claim), 'claim after release')];
      leases.push(leaseOf(await store.claim({ deliveryId: newId() }), 'claim of another id'));
      expectThat(new Set(leases).size === leases.length, 'two claims were given the same lease');
    },
  },
  {
    name: 'lease expiry: a claim after the lease lapses wins',
    fix: 'Let a claim hold only for leaseMs (an expiry on the claim record: Redis PX, an expires_at column the claim compares, a DynamoDB condition on the lease time), so a crashed handler’s delivery runs again.',
    async run({ fresh, leaseMs }) {
      const store = await fresh({ leaseMs });
      const claim = { deliveryId: newId() };
      leaseOf(await store.claim(claim), 'claim');
      await sleep(leaseMs * 2.5);
      leaseOf(await store.claim(claim), `claim ${leaseMs * 2.5} ms later, past a ${leaseMs} ms lease`);
    },
  },
  {
    name: 'lost lease: complete, renew and release with a lease another claim took over change nothing',
    fix: 'Make complete, renew and release conditional on the lease they are given: complete and renew answer false, and release does nothing, once another claim holds the id.',
    async run({ fresh, leaseMs }) {
      const store = await fresh({ leaseMs });
      const claim = { deliveryId: newId() };
      const lapsed = leaseOf(await store.claim(claim), 'claim');
      await sleep(leaseMs * 2.5);
      const current = leaseOf(await store.claim(claim), 'claim after the lease lapsed');
      expectOutcome(await store.complete(claim, lapsed, ANSWER), false, 'complete with the lost lease');
      if (store.renew) expectOutcome(await store.renew(claim, lapsed), false, 'renew with the lost lease');
      await store.release(claim, lapsed);
      expectOutcome(await store.claim(claim), { state: 'in-progress' }, 'claim after a release with the lost lease');
      expectThat(
        (await store.complete(claim, current, ANSWER)) !== false,
        'complete with the current lease answered false',
      );
    },
  },
  {
    name: 'lapsed lease: complete still records when nobody took the id over',
    fix: 'Let complete record the answer whenever no other claim holds the id, even after its own lease lapsed: the handler did run.',
    async run({ fresh, leaseMs }) {
      const store = await fresh({ leaseMs });
      const claim = { deliveryId: newId() };
      const lease = leaseOf(await store.claim(claim), 'claim');
      await sleep(leaseMs * 2.5);
      const completed = await store.complete(claim, lease, ANSWER);
      expectThat(completed !== false, `complete after the lease lapsed, untaken, answered ${shown(completed)}`);
      expectOutcome(await store.claim(claim), { state: 'done', answer: ANSWER }, 'claim after that complete');
    },
  },
  {
    name: 'renew: a renewed claim holds past its lease',
    fix: 'Implement renew(claim, lease): extend the claim by leaseMs when the lease still holds it, and answer true.',
    skip: (store) => (store.renew ? undefined : 'no renew: a handler slower than leaseMs may run twice'),
    async run({ fresh, leaseMs }) {
      const store = await fresh({ leaseMs });
      const claim = { deliveryId: newId() };
      const lease = leaseOf(await store.claim(claim), 'claim');
      for (let i = 0; i < 6; i++) {
        await sleep(leaseMs / 3);
        expectOutcome(await store.renew!(claim, lease), true, `renew ${i + 1}`);
      }
      expectOutcome(await store.claim(claim), { state: 'in-progress' }, `claim ${leaseMs * 2} ms into a renewed claim`);
    },
  },
  {
    name: 'retention: a handled id is forgotten after retentionMs',
    fix: 'Give every record an expiry of retentionMs (Redis PX, a DynamoDB TTL attribute plus a time check on read, an expired-row sweep in SQL), or the store grows for ever.',
    async run({ fresh, leaseMs, retentionMs }) {
      const store = await fresh({ leaseMs, retentionMs });
      const claim = { deliveryId: newId() };
      await store.complete(claim, leaseOf(await store.claim(claim), 'claim'), ANSWER);
      expectOutcome(await store.claim(claim), { state: 'done', answer: ANSWER }, 'claim right after complete');
      await sleep(retentionMs * 2 + 100);
      leaseOf(await store.claim(claim), `claim ${retentionMs * 2 + 100} ms later, past a ${retentionMs} ms retention`);
    },
  },
];
