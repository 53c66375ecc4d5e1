import type { DedupStore, StoredAnswer, TransactOutcome } from '../dedup/store.js';
import { expectOutcome, expectThat, newId, type StoreCheck, shown, sleep } from './store-check.js';

const needsTransact = (store: DedupStore) => (store.transact ? undefined : 'not transactional (no `transact`)');
const ANSWER: StoredAnswer = { ok: true, published_url: 'https://blog.example.com/transact-check' };
// Each transact holds a connection until it commits; more racers than a small pool has would
// only test the pool.
const TRANSACT_RACERS = 5;

/** Transactional stores: `transact` runs the work once and records the answer with it. */
export const TRANSACT_CHECKS: StoreCheck[] = [
  {
    name: 'transact: exactly one of several concurrent transacts runs the work',
    fix: "Claim the id inside the transaction with a row lock or a conditional insert, so a second transact waits or answers `{ state: 'in-progress' }` / `{ state: 'done' }`, never runs the work.",
    skip: needsTransact,
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      let runs = 0;
      const work = async () => {
        runs++;
        await sleep(50);
        return ANSWER;
      };
      const outcomes: TransactOutcome[] = await Promise.all(
        Array.from({ length: TRANSACT_RACERS }, () => store.transact!(claim, work)),
      );
      const committed = outcomes.filter((outcome) => outcome.state === 'committed').length;
      expectThat(
        runs === 1 && committed === 1,
        `${TRANSACT_RACERS} transacts: the work ran ${runs} times, ${committed} committed`,
      );
      const others = outcomes.filter((outcome) => outcome.state !== 'committed');
      expectThat(
        others.every((outcome) => outcome.state === 'in-progress' || outcome.state === 'done'),
        `the other transacts answered ${shown(others)}`,
      );
      expectOutcome(await store.claim(claim), { state: 'done', answer: ANSWER }, 'claim after the commit');
    },
  },
  {
    name: 'transact: work that throws rolls back, its error rethrown unchanged, and the retry commits',
    fix: 'On a throw from work, ROLLBACK (the claim with it) and rethrow the same error object.',
    skip: needsTransact,
    async run({ fresh }) {
      const store = await fresh();
      const claim = { deliveryId: newId() };
      const failure = new Error('handler failed');
      const thrown = await store.transact!(claim, async () => {
        throw failure;
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expectThat(thrown === failure, `transact did not rethrow the work's error unchanged: ${shown(String(thrown))}`);
      expectOutcome(
        await store.transact!(claim, async () => ANSWER),
        { state: 'committed', answer: ANSWER },
        'transact after the rollback',
      );
    },
  },
];
