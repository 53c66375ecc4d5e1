// verify() against the limit and the peers, per body size; plus the Web Crypto path.

import { createReceiver, webCryptoProvider } from 'webhook-cms-receiver';
import { compare } from '../lib/measure.mjs';
import { articleBody, freshDeliveries, signedDelivery, SIZES, TOKEN } from '../lib/deliveries.mjs';
import {
  dedupLimit,
  limit,
  limitFastestHmac,
  octokit,
  rawSubtle,
  standardWebhooks,
  stripeConstructEvent,
  withPeerHeaders,
} from '../lib/peers.mjs';

const ours = createReceiver({ token: TOKEN, dedup: false });
const oursWeb = createReceiver({ token: TOKEN, dedup: false, crypto: webCryptoProvider() });

/** Longer batches for large bodies, so each holds enough deliveries for a GC pause to average out. */
function batchFor(size, batchMs) {
  return size > 16 * 1024 ? batchMs * 2.5 : batchMs;
}

/** Refuses to time a contender that does not actually accept the delivery. */
async function sane(name, fn, delivery) {
  const event = await fn(delivery);
  const type = event?.type ?? event?.event;
  if (type !== 'article.sync')
    throw new Error(`${name} did not verify the bench delivery (got ${JSON.stringify(type)})`);
}

export async function verifySuite({ rounds, batchMs }) {
  const rows = [];
  for (const [label, size] of SIZES) {
    const delivery = withPeerHeaders(signedDelivery(articleBody(size)));
    const contenders = [
      { name: 'limit', fn: limit },
      { name: 'limit, fastest HMAC', fn: limitFastestHmac },
      { name: 'verify()', fn: (d) => ours.verify(d), async: true },
      { name: 'stripe', fn: stripeConstructEvent },
      { name: 'octokit', fn: octokit, async: true },
      { name: 'standardwebhooks', fn: standardWebhooks },
    ];
    for (const c of contenders) await sane(c.name, c.fn, delivery);
    const results = await compare(contenders, { rounds, batchMs: batchFor(size, batchMs), input: () => delivery });
    rows.push({ label, size, results });
  }
  return rows;
}

export async function webCryptoSuite({ rounds, batchMs }) {
  const rows = [];
  for (const [label, size] of SIZES) {
    const delivery = signedDelivery(articleBody(size));
    const contenders = [
      { name: 'raw subtle', fn: rawSubtle, async: true },
      { name: 'verify() on Web Crypto', fn: (d) => oursWeb.verify(d), async: true },
    ];
    for (const c of contenders) await sane(c.name, c.fn, delivery);
    rows.push({
      label,
      size,
      results: await compare(contenders, { rounds, batchMs: batchFor(size, batchMs), input: () => delivery }),
    });
  }
  return rows;
}

/** handle() with the default memory store, every delivery new (fresh id and signature). */
export async function handleSuite({ rounds, batchMs, sizes }) {
  const receiver = createReceiver({ token: TOKEN });
  const handlers = { 'article.sync': () => {} };
  const handle = async (pool, i) => {
    const answer = await receiver.handle(pool[i], handlers);
    if (answer.status !== 200 || answer.body.duplicate)
      throw new Error(`handle answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };
  const rows = [];
  for (const [label, size] of SIZES.filter(([, bytes]) => sizes.includes(bytes))) {
    const deduplicating = dedupLimit();
    const contenders = [
      { name: 'limit', fn: (pool, i) => deduplicating(pool[i]) },
      { name: 'handle() + memory store', fn: handle, async: true },
    ];
    rows.push({
      label,
      size,
      results: await compare(contenders, { rounds, batchMs, input: (count) => freshDeliveries(size, count) }),
    });
  }
  return rows;
}
