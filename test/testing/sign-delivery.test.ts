import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import {
  articleSyncPayload,
  articleTrashPayload,
  signature,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { vectors } from '../helpers/vectors.js';

describe('signDelivery()', () => {
  it.each(vectors.filter((v) => v.expect.status === 200).map((v) => [v.name, v] as const))(
    'reproduces the signature of the vector %s',
    (_n, vector) => {
      const used = vector.headers.Authorization!.slice('Bearer '.length);
      const signed = signDelivery({
        token: used,
        payload: vector.body,
        timestamp: vector.headers['X-Service-Timestamp']!,
      });
      expect(signed.headers['X-Service-Signature']).toBe(vector.headers['X-Service-Signature']);
    },
  );

  it('sends the headers the service sends', () => {
    const payload = articleSyncPayload();
    const { headers, body } = signDelivery({ token: 't0k', payload, timestamp: 1763800000, deliveryId: 'd-1' });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      Authorization: 'Bearer t0k',
      'X-Service-Timestamp': '1763800000',
      'X-Service-Signature': `sha256=${signature('t0k', '1763800000', body)}`,
      'X-Service-Event': 'article.sync',
      'X-Service-Delivery-Id': 'd-1',
    });
    expect(JSON.parse(body as string)).toEqual(payload);
  });

  it('makes a fresh UUID delivery id by default, and leaves the header out for null', () => {
    const a = signDelivery({ token: 't', payload: testPayload() }).headers['X-Service-Delivery-Id'];
    const b = signDelivery({ token: 't', payload: testPayload() }).headers['X-Service-Delivery-Id'];
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    expect(signDelivery({ token: 't', payload: testPayload(), deliveryId: null }).headers).not.toHaveProperty(
      'X-Service-Delivery-Id',
    );
  });

  it('refuses an empty token', () => {
    expect(() => signDelivery({ token: '', payload: testPayload() })).toThrow(/token/);
  });

  it('produces deliveries the receiver accepts, for every factory', async () => {
    const receiver = createReceiver({ token: 'round-trip' });
    for (const payload of [articleSyncPayload(), articleTrashPayload(), testPayload()]) {
      const event = await receiver.verify(signDelivery({ token: 'round-trip', payload }));
      expect(event.payload).toEqual(payload);
    }
  });
});

describe('payload factories', () => {
  it('merge article and profile overrides into realistic defaults', () => {
    const payload = articleSyncPayload({
      article: { slug: 'hello', status: 'draft' },
      profile: { domain: 'example.org' },
      timestamp: 5,
    });
    expect(payload).toMatchObject({
      event: 'article.sync',
      timestamp: 5,
      article: { slug: 'hello', status: 'draft', title: expect.any(String) },
      profile: { id: 'prof_42', domain: 'example.org' },
    });
    expect(articleTrashPayload({ article: { slug: 'gone' } }).article).toEqual({
      id: expect.any(String),
      slug: 'gone',
    });
  });

  it('stamp the envelope with the current time', () => {
    const before = Math.floor(Date.now() / 1000);
    expect(testPayload().timestamp).toBeGreaterThanOrEqual(before);
  });
});
