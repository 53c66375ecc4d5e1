import { createHmac } from 'node:crypto';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { articleSyncPayload } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';

const token = 'whk_cross_check_0123456789';
const stripe = new Stripe('sk_test_cross_check');

/** Signers from other projects that implement the same `<timestamp>.<body>` HMAC-SHA256 scheme. */
const signers: [string, (timestamp: string, body: string) => Promise<string>][] = [
  [
    'stripe-node generateTestHeaderString',
    async (timestamp, body) => {
      const header = stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: token,
        timestamp: Number(timestamp),
      });
      return `sha256=${/v1=([0-9a-f]{64})/.exec(header)![1]}`;
    },
  ],
  ['@octokit/webhooks-methods sign', (timestamp, body) => octokitSign(token, `${timestamp}.${body}`)],
  [
    'node:crypto createHmac',
    async (timestamp, body) => `sha256=${createHmac('sha256', token).update(`${timestamp}.${body}`).digest('hex')}`,
  ],
];

describe.each(providers)('signatures from other implementations with %s', (_name, crypto) => {
  const receiver = createReceiver({ token, crypto, dedup: false });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify(
    articleSyncPayload({ article: { title: 'Référencement 🚀 日本語', content_markdown: 'x'.repeat(5000) } }),
  );
  const headersFor = (signature: string) => ({
    authorization: `Bearer ${token}`,
    'x-service-timestamp': timestamp,
    'x-service-signature': signature,
    'x-service-delivery-id': 'cross-1',
  });

  it.each(signers)('accepts a delivery signed by %s', async (_signer, signWith) => {
    const event = await receiver.verify({ headers: headersFor(await signWith(timestamp, body)), body });
    expect(event.type).toBe('article.sync');
  });

  it.each(signers)('refuses a one-byte change to a body signed by %s', async (_signer, signWith) => {
    const signature = await signWith(timestamp, body);
    const changed = body.replace('Référencement', 'Referencement');
    expect(changed).not.toBe(body);
    const answer = await receiver.handle({ headers: headersFor(signature), body: changed }, {});
    expect(answer).toEqual({ status: 403, body: { error: 'Invalid signature' } });
  });
});
