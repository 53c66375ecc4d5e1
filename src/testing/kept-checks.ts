import type { KeptRequest } from '../dedup/kept-requests.js';
import type { DedupStore } from '../dedup/store.js';
import { expectOutcome, expectThat, newId, type StoreCheck, shown, sleep } from './store-check.js';

const needsKept = (store: DedupStore) => (store.kept ? undefined : 'no kept-request store (`kept`)');

const request = (): KeptRequest => ({
  id: newId(),
  tokenSha256: 'c0ffee'.padEnd(64, '0'),
  headers: { 'x-service-delivery-id': newId(), 'x-service-timestamp': '1767225600' },
  body: btoa('{"event":"test"}'),
  receivedAt: 1_767_225_600_000,
});

const roomy = () => ({ maxCount: 1_000_000, maxBytes: 1 << 30, until: Date.now() + 60_000 });

/** The kept-request store of a rotation window: checked on stores that have `kept`. */
export const KEPT_CHECKS: StoreCheck[] = [
  {
    name: 'kept requests: kept, listed, and taken by exactly one of many concurrent takers',
    fix: 'keep stores the request, list answers its id and token hash, and take removes and returns it atomically (Redis GETDEL or a script, SQL `DELETE … RETURNING`): exactly one caller gets it.',
    skip: needsKept,
    async run({ fresh, concurrentClaims }) {
      const kept = (await fresh()).kept!;
      const one = request();
      expectOutcome(await kept.keep(one, roomy()), true, 'keep within the bounds');
      const listed = (await kept.list()).find((summary) => summary.id === one.id);
      expectOutcome(listed, { id: one.id, tokenSha256: one.tokenSha256 }, 'list after keep');
      const taken = await Promise.all(Array.from({ length: concurrentClaims }, () => kept.take(one.id)));
      const got = taken.filter((value) => value !== undefined);
      expectThat(got.length === 1, `${concurrentClaims} concurrent takes: ${got.length} got the request, expected 1`);
      expectOutcome(got[0], one, 'the request taken');
      expectThat(!(await kept.list()).some((summary) => summary.id === one.id), 'a taken request is still listed');
    },
  },
  {
    name: 'kept requests: refused past maxCount',
    fix: 'Count what is kept in the same atomic step as keeping, and answer false (keep nothing) once maxCount or maxBytes is reached.',
    skip: needsKept,
    async run({ fresh }) {
      const kept = (await fresh()).kept!;
      const limits = { ...roomy(), maxCount: (await kept.list()).length + 1 };
      const [first, second] = [request(), request()];
      expectOutcome(await kept.keep(first, limits), true, 'keep up to maxCount');
      const refused = await kept.keep(second, limits);
      await kept.take(first.id);
      await kept.take(second.id);
      expectThat(refused === false, `keep past maxCount answered ${shown(refused)}, expected false`);
    },
  },
  {
    name: 'kept requests: forgotten after their `until`',
    fix: 'Give each kept request an expiry at limits.until, and leave expired ones out of list and take.',
    skip: needsKept,
    async run({ fresh, retentionMs }) {
      const kept = (await fresh()).kept!;
      const one = request();
      expectOutcome(await kept.keep(one, { ...roomy(), until: Date.now() + retentionMs }), true, 'keep');
      await sleep(retentionMs * 2 + 100);
      expectThat(!(await kept.list()).some((summary) => summary.id === one.id), 'an expired request is still listed');
      expectOutcome(await kept.take(one.id), undefined, 'take of an expired request');
    },
  },
];
