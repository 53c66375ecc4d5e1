// The hand-written limit and the peer libraries, each given the same signed bytes in the
// header format it expects. Every function returns the parsed event or throws.

import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { TOKEN } from './deliveries.mjs';

/**
 * The least work a correct receiver can do on Node: HMAC the timestamp prefix and the raw
 * bytes, compare in constant time, parse. No token check, no envelope check, no strict UTF-8.
 */
export function limit(delivery) {
  const { headers, body } = delivery;
  const expected = Buffer.from(headers['x-service-signature'].slice(7), 'hex');
  const mac = createHmac('sha256', TOKEN).update(`${headers['x-service-timestamp']}.`).update(body).digest();
  if (expected.length !== mac.length || !timingSafeEqual(mac, expected)) throw new Error('limit: bad signature');
  return JSON.parse(body.toString('utf8'));
}

/**
 * The least any correct deduplicating receiver does: the limit, plus a Map lookup and insert
 * of the delivery id with oldest-first eviction at the memory store's default bound.
 */
export function dedupLimit(bound = 100_000) {
  const seen = new Map();
  return (delivery) => {
    const event = limit(delivery);
    const id = delivery.headers['x-service-delivery-id'];
    if (seen.has(id)) throw new Error('dedupLimit: a fresh delivery was seen before');
    seen.set(id, Date.now());
    if (seen.size > bound) seen.delete(seen.keys().next().value);
    return event;
  };
}

const stripe = new Stripe('sk_test_bench_never_used_for_requests');

/** stripe-node's `webhooks.constructEvent` over the same `<ts>.<body>` message. */
export function stripeConstructEvent(delivery) {
  return stripe.webhooks.constructEvent(delivery.body, delivery.stripeHeader, TOKEN);
}

/** @octokit/webhooks-methods `verify` (async, string payload) + JSON.parse, as its README shows. */
export async function octokit(delivery) {
  const text = delivery.body.toString('utf8');
  if (!(await octokitVerify(TOKEN, `${delivery.timestamp}.${text}`, delivery.headers['x-service-signature'])))
    throw new Error('octokit: bad signature');
  return JSON.parse(text);
}

const standardWebhook = new StandardWebhook(Buffer.from(TOKEN).toString('base64'));

/** standardwebhooks `Webhook.verify`, which signs `<id>.<ts>.<body>` and parses. */
export function standardWebhooks(delivery) {
  return standardWebhook.verify(delivery.body, delivery.standardHeaders);
}

/** Adds the headers stripe and standardwebhooks expect for the same body. */
export function withPeerHeaders(delivery) {
  const { timestamp, signature, body } = delivery;
  const id = delivery.headers['x-service-delivery-id'];
  const standardSignature = createHmac('sha256', TOKEN).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return {
    ...delivery,
    stripeHeader: `t=${timestamp},v1=${signature}`,
    standardHeaders: {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${standardSignature}`,
    },
  };
}

const subtle = webcrypto.subtle;
const rawKey = subtle.importKey('raw', Buffer.from(TOKEN), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

/**
 * The least a receiver on Web Crypto can do: the key imported once, one buffer holding
 * `<ts>.` and the body (subtle cannot stream), `subtle.verify`, parse.
 */
export async function rawSubtle(delivery) {
  const { headers, body } = delivery;
  const expected = Buffer.from(headers['x-service-signature'].slice(7), 'hex');
  const message = Buffer.concat([Buffer.from(`${headers['x-service-timestamp']}.`, 'latin1'), body]);
  if (!(await subtle.verify('HMAC', await rawKey, expected, message))) throw new Error('subtle: bad signature');
  return JSON.parse(body.toString('utf8'));
}
