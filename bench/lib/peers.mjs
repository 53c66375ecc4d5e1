// The hand-written limit and the peer libraries, each given the same signed bytes in the
// header format it expects. Every function returns the parsed event or throws.

import { createHmac, hash, timingSafeEqual, webcrypto } from 'node:crypto';
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

// The token's HMAC pad blocks, computed once, for the reference below. The token is shorter
// than SHA-256's 64-byte block, so it is zero-padded rather than hashed first (RFC 2104).
const TWO_PASS_MAX = 64 * 1024;
const INNER = Buffer.alloc(64 + 16 + TWO_PASS_MAX);
const OUTER = Buffer.alloc(64 + 32);
for (let i = 0; i < 64; i++) {
  const byte = i < TOKEN.length ? TOKEN.charCodeAt(i) : 0;
  INNER[i] = byte ^ 0x36;
  OUTER[i] = byte ^ 0x5c;
}

/**
 * The limit's work with the fastest HMAC construction for its size, a second reference: up to
 * 64 KiB two one-shot `crypto.hash` calls over the precomputed pads, inner = SHA-256(ipad ‖
 * ts. ‖ body) and HMAC = SHA-256(opad ‖ inner), the message built in one buffer reused across
 * calls and the digests taken as latin1 strings (a `Buffer` digest costs an off-heap
 * allocation), compared in constant time in JavaScript; above 64 KiB `createHmac`, which is
 * then faster than copying the body (the limit itself).
 */
export function limitFastestHmac(delivery) {
  const { headers, body } = delivery;
  if (body.length > TWO_PASS_MAX) return limit(delivery);
  const expected = Buffer.from(headers['x-service-signature'].slice(7), 'hex');
  const start = 64 + INNER.latin1Write(`${headers['x-service-timestamp']}.`, 64);
  body.copy(INNER, start);
  OUTER.latin1Write(hash('sha256', INNER.subarray(0, start + body.length), 'latin1'), 64);
  const mac = hash('sha256', OUTER, 'latin1');
  let difference = expected.length ^ 32;
  for (let i = 0; i < 32; i++) difference |= mac.charCodeAt(i) ^ (expected[i] | 0);
  if (difference !== 0) throw new Error('limitFastestHmac: bad signature');
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
