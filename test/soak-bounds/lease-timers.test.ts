// Issue 49 item 5: while an async handler runs, the receiver renews its claim with a timer per
// lease (src/receiver/lease-keeper.ts). Deliveries with distinct ids, a hundred handlers at a
// time, must leave no timer and no entry behind once they complete. Timers are counted with
// async_hooks, which sees unref'd ones too (`process.getActiveResourcesInfo()` does not, and the
// keeper unrefs its timer). 20,000 ids in npm test; a million with SOAK_BOUNDS_FULL=1 (about
// 60 µs each on a loaded 2-core machine), SOAK_BOUNDS_KEYS sets another count.

import { createHook } from 'node:async_hooks';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { retainedBytes } from './retained.js';

const full = process.env.SOAK_BOUNDS_FULL === '1';
const total = Number(process.env.SOAK_BOUNDS_KEYS || (full ? 1_000_000 : 20_000));
const BATCH = 100;
const TOKEN = 'soak-bounds-lease-token';

/** Timers alive now, unref'd ones included: created and not yet cleared or fired. */
function timerCensus() {
  const live = new Set<number>();
  const hook = createHook({
    init(asyncId, type) {
      if (type === 'Timeout') live.add(asyncId);
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  return { live: () => live.size, stop: () => hook.disable() };
}

/** async_hooks reports destroyed timers a little later: a turn of the timers phase lets it catch up. */
const settleDestroys = () => new Promise((resolve) => setTimeout(resolve, 20));

function delivery(i: number) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = `{"event":"test","timestamp":${timestamp},"article":null,"profile":null}`;
  const signature = createHmac('sha256', TOKEN).update(`${timestamp}.${body}`).digest('hex');
  const headers = {
    authorization: `Bearer ${TOKEN}`,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${signature}`,
    'x-service-delivery-id': `lease-${i}`,
  };
  return { headers, body };
}

describe(`lease timers under ${total.toLocaleString('en-US')} distinct delivery ids`, () => {
  it('keeps a timer per running handler and none after it completes', async () => {
    let release = () => {};
    let gate = Promise.resolve();
    let ran = 0;
    const receiver = createReceiver({
      token: TOKEN,
      // Full after the warm-up, so what the store keeps cannot pass for lease leftovers.
      dedup: memoryDedupStore({ maxEntries: 1_000 }),
      logger: false,
    });
    const handlers = {
      test: async () => {
        await gate;
        ran++;
      },
    };
    const census = timerCensus();
    const warmup = total / 10;
    let during = Number.POSITIVE_INFINITY;
    let before = 0;
    let liveBefore = 0;
    const started = process.cpuUsage();
    try {
      for (let i = 0; i < total; i += BATCH) {
        if (i === warmup) {
          await settleDestroys();
          before = retainedBytes();
          liveBefore = census.live();
        }
        gate = new Promise<void>((resolve) => (release = resolve));
        const answers = [];
        for (let k = i; k < i + BATCH; k++) answers.push(receiver.handle(delivery(k), handlers));
        // Every handler of the batch is waiting on the gate: each holds a lease and its timer.
        await new Promise((resolve) => setImmediate(resolve));
        during = Math.min(during, census.live());
        release();
        for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
      }
      await settleDestroys();
      const growth = retainedBytes() - before;
      const liveAfter = census.live();
      const cpu = process.cpuUsage(started);
      console.log(
        `lease timers: ${total} ids, ${((cpu.user + cpu.system) / total).toFixed(1)} µs of CPU each; ` +
          `${during} timers while a batch of ${BATCH} ran, ${liveAfter - liveBefore} left after; ` +
          `heap ${(growth / (total - warmup)).toFixed(2)} bytes per id after the warm-up`,
      );
      expect(ran).toBe(total);
      // The keeping is real (a timer per lease while the batch waits), so the next check can fail.
      expect(during).toBeGreaterThanOrEqual(BATCH);
      expect(liveAfter).toBeLessThanOrEqual(liveBefore);
      // A lease kept per id would be its claim, its closure and its timer: hundreds of bytes.
      expect(growth / (total - warmup)).toBeLessThan(8);
      expect(growth).toBeLessThan(8 * 1024 * 1024);
    } finally {
      census.stop();
    }
  }, 900_000);
});
