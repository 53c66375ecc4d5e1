// verify() against the limit and the peers, per body size; plus the Web Crypto path.

import { createReceiver, webCryptoProvider } from 'webhook-cms-receiver';
import { compare } from '../lib/measure.mjs';
import { articleBody, signedDelivery, SIZES, TOKEN } from '../lib/deliveries.mjs';
import { limit, octokit, rawSubtle, standardWebhooks, stripeConstructEvent, withPeerHeaders } from '../lib/peers.mjs';

const ours = createReceiver({ token: TOKEN, dedup: false });
const oursWeb = createReceiver({ token: TOKEN, dedup: false, crypto: webCryptoProvider() });

/** Refuses to time a contender that does not actually accept the delivery. */
async function sane(name, fn, delivery) {
  const event = await fn(delivery);
  const type = event?.type ?? event?.event;
  if (type !== 'article.sync') throw new Error(`${name} did not verify the bench delivery (got ${JSON.stringify(type)})`);
}

export async function verifySuite({ rounds, batchMs }) {
  const rows = [];
  for (const [label, size] of SIZES) {
    const delivery = withPeerHeaders(signedDelivery(articleBody(size)));
    const contenders = [
      { name: 'limit', fn: limit },
      { name: 'verify()', fn: (d) => ours.verify(d), async: true },
      { name: 'stripe', fn: stripeConstructEvent },
      { name: 'octokit', fn: octokit, async: true },
      { name: 'standardwebhooks', fn: standardWebhooks },
    ];
    for (const c of contenders) await sane(c.name, c.fn, delivery);
    const results = await compare(contenders, { rounds, batchMs, input: () => delivery });
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
    rows.push({ label, size, results: await compare(contenders, { rounds, batchMs, input: () => delivery }) });
  }
  return rows;
}
