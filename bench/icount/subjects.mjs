// The micro subjects of `npm run bench:icount`: what one call of each does, and the inputs it
// takes, built and signed before any counting window opens. Every child process imports this
// module (and so the peers), so every subject runs in the same loaded process.

import { createReceiver } from 'webhook-cms-receiver';
import { articleBody, freshDeliveries, signedDelivery } from '../lib/deliveries.mjs';
import { dedupLimit, limit, limitFastestHmac, octokit, stripeConstructEvent, withPeerHeaders } from '../lib/peers.mjs';
import { TOKEN } from '../lib/deliveries.mjs';
import { LEDGER_SUBJECTS } from '../suites/ledger-icount.mjs';

const handlers = { 'article.sync': () => {} };

/** One signed delivery, repeated: verify() and its references keep no state between calls. */
const repeated = (size, count) => new Array(count).fill(withPeerHeaders(signedDelivery(articleBody(size))));

/**
 * name → { make(): the call, async: whether it returns a promise, inputs(size, count) }.
 * handle() and its deduplicating limit get a fresh delivery (id and signature) per call.
 */
export const SUBJECTS = {
  'verify()': {
    make: () => {
      const receiver = createReceiver({ token: TOKEN, dedup: false });
      return (delivery) => receiver.verify(delivery);
    },
    async: true,
    inputs: repeated,
  },
  limit: { make: () => limit, inputs: repeated },
  'limit, fastest HMAC': { make: () => limitFastestHmac, inputs: repeated },
  stripe: { make: () => stripeConstructEvent, inputs: repeated },
  octokit: { make: () => octokit, async: true, inputs: repeated },
  'handle()': {
    make: () => {
      const receiver = createReceiver({ token: TOKEN });
      return async (delivery) => {
        const answer = await receiver.handle(delivery, handlers);
        if (answer.status !== 200 || answer.body.duplicate) throw new Error(`handle answered ${answer.status}`);
        return answer;
      };
    },
    async: true,
    inputs: freshDeliveries,
  },
  'deduplicating limit': { make: () => dedupLimit(), inputs: freshDeliveries },
  ...LEDGER_SUBJECTS,
};
