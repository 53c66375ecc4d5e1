// The delivery ledger's subjects of `npm run bench:icount` (issue 48 item 6), merged into
// bench/icount/subjects.mjs: handle() of a fresh signed 1 KiB delivery with `memoryLedger()`,
// and a request refused for its token with and without one, each against the same receiver
// without a ledger (the memory dedup store in every one). Rows are buffered and written in
// batches, so the ledger's subjects flush it every FLUSH_EVERY calls inside the counted
// windows: the write (the memory store's append, its prune every 5,000 rows, the timer each
// batch sets) is paid pro rata, as a receiver under load pays it.

import { createReceiver, memoryLedger } from 'webhook-cms-receiver';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';

/** Calls per batch written: a window of 1,000 calls holds 10 flushes whatever its chunking. */
export const FLUSH_EVERY = 100;
const handlers = { 'article.sync': () => {} };
const WRONG = `Bearer ${TOKEN.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`;

/** Fresh deliveries (each a new id and signature) whose token is not the receiver's: each a 401. */
function refusedDeliveries(size, count) {
  const deliveries = freshDeliveries(size, count);
  for (const delivery of deliveries) delivery.headers.authorization = WRONG;
  return deliveries;
}

/** handle() answering `status` for each input, with the ledger (when given) flushed every FLUSH_EVERY calls. */
function handleWith(receiverOptions, status) {
  const receiver = createReceiver({ token: TOKEN, ...receiverOptions });
  const { ledger } = receiverOptions;
  let calls = 0;
  return async (delivery) => {
    const answer = await receiver.handle(delivery, handlers);
    if (answer.status !== status || answer.body.duplicate) throw new Error(`handle answered ${answer.status}`);
    if (ledger && ++calls % FLUSH_EVERY === 0) await ledger.flush();
    return answer;
  };
}

/**
 * name → subject, as in bench/icount/subjects.mjs. `refuses` tells micro-child.mjs to expect a
 * 401 from the first call instead of an accepted article.sync. The reference of the accepted
 * path is the existing `handle()` subject (the same receiver, no ledger).
 */
export const LEDGER_SUBJECTS = {
  'handle(), memory ledger': {
    make: () => handleWith({ ledger: memoryLedger() }, 200),
    async: true,
    inputs: freshDeliveries,
  },
  'handle(), refused': {
    make: () => handleWith({}, 401),
    async: true,
    refuses: true,
    inputs: refusedDeliveries,
  },
  // The default refusal rate limit (120 a minute per process): past the first 120, a flood of
  // wrong-token requests is counted, not recorded. What an attack costs.
  'handle(), refused, memory ledger': {
    make: () => handleWith({ ledger: memoryLedger() }, 401),
    async: true,
    refuses: true,
    inputs: refusedDeliveries,
  },
  // Every refusal recorded (the limit lifted): what each refusal within the limit costs.
  'handle(), refused, memory ledger, each recorded': {
    make: () => handleWith({ ledger: memoryLedger({ refusalsPerMinute: 1e9 }) }, 401),
    async: true,
    refuses: true,
    inputs: refusedDeliveries,
  },
};
