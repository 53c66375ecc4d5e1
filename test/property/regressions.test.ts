import { describe, expect, it } from 'vitest';
import { createReceiver, type DeliveryInput, type RejectionInfo, type WebhookEvent } from 'webhook-cms-receiver';
import { signDelivery } from 'webhook-cms-receiver/testing';

/** Inputs the property suite once found mishandled, kept as fixed examples. */
describe('regressions found by the property suite', () => {
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'an unknown event named %s (an Object.prototype member) is an unknown event, acknowledged without a delivery id',
    async (name) => {
      const receiver = createReceiver({ token: 't' });
      const signed = signDelivery({
        token: 't',
        payload: { event: name, timestamp: 1, article: { any: 1 }, profile: false },
        deliveryId: null,
      });
      const seen: WebhookEvent[] = [];
      const answer = await receiver.handle(signed, { unknown: (event) => void seen.push(event) });
      expect(answer).toEqual({ status: 200, body: { ok: true } });
      expect(seen.map((event) => [event.type, event.name])).toEqual([['unknown', name]]);
    },
  );

  const boom = () => {
    throw new Error('getter failed');
  };
  const hostile: [string, () => unknown][] = [
    [
      'headers whose getter throws',
      () => ({
        headers: {
          get authorization() {
            return boom();
          },
        },
        body: '{}',
      }),
    ],
    [
      'headers that are a Proxy throwing on every trap',
      () => ({
        headers: new Proxy({}, { ownKeys: boom, get: boom, has: boom, getOwnPropertyDescriptor: boom }),
        body: '{}',
      }),
    ],
    [
      'an input whose headers getter throws',
      () => ({
        get headers() {
          return boom();
        },
        body: '{}',
      }),
    ],
    ['an input that is a Proxy throwing on get', () => new Proxy({}, { get: boom })],
    [
      'a getter throwing a value String() cannot convert',
      () => ({
        headers: {
          get authorization() {
            throw Object.create(null);
          },
        },
        body: '{}',
      }),
    ],
  ];

  it.each(hostile)(
    'handle() resolves to 500 Internal error (our side, so the service retries) for %s',
    async (_label, make) => {
      const reasons: RejectionInfo[] = [];
      const receiver = createReceiver({ token: 't', onRejected: (_error, info) => void reasons.push(info) });
      const answer = await receiver.handle(make() as DeliveryInput);
      expect(answer).toEqual({ status: 500, body: { error: 'Internal error' } });
      expect(reasons).toHaveLength(1);
    },
  );
});
