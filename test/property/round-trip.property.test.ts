import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, type BodyInput } from 'webhook-cms-receiver';
import { signDelivery } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';
import { ageArb, envelopeArb, NOW_SECONDS, nowMs, tokenListArb } from './arbitraries.js';
import { PROPERTY_TIMEOUT_MS, propertyFile } from './budget.js';
import { headerShapeArb, shapeHeaders, toRaw } from './header-shapes.js';

const utf8 = new TextEncoder();

/** The raw body in every form the contract accepts, bytes identical; the offset ones mimic pooled Buffers. */
const BODY_FORMS: Record<string, (text: string, pad: number) => BodyInput> = {
  string: (text) => text,
  Uint8Array: (text) => utf8.encode(text),
  ArrayBuffer: (text) => utf8.encode(text).buffer as ArrayBuffer,
  Buffer: (text) => Buffer.from(text, 'utf8'),
  'Buffer at an offset': (text, pad) => {
    const bytes = utf8.encode(text);
    const pool = Buffer.alloc(pad + bytes.length + pad, 0x7b);
    pool.set(bytes, pad);
    return pool.subarray(pad, pad + bytes.length);
  },
  'DataView at an offset': (text, pad) => {
    const bytes = utf8.encode(text);
    const pool = new Uint8Array(pad + bytes.length + 3);
    pool.set(bytes, pad);
    return new DataView(pool.buffer, pad, bytes.length);
  },
};

const caseArb = fc.record({
  tokens: tokenListArb,
  pick: fc.nat(),
  envelope: envelopeArb,
  age: ageArb,
  deliveryId: fc.option(fc.uuid(), { nil: undefined }),
  form: fc.constantFrom(...Object.keys(BODY_FORMS)),
  pad: fc.integer({ min: 1, max: 64 }),
  shape: headerShapeArb,
});

const KNOWN = ['article.sync', 'article.trash', 'test'];

describe('arbitrary valid envelopes round-trip through signDelivery() and verify()', () => {
  const check = propertyFile('round trip', ['roundTrip']);

  it.each(providers)(
    'with %s: the event carries the same payload, type, delivery id and token index',
    async (_name, crypto) => {
      await check('roundTrip', caseArb, async ({ tokens, pick, envelope, age, deliveryId, form, pad, shape }) => {
        const tokenIndex = pick % tokens.length;
        const receiver = createReceiver({ token: tokens, now: nowMs, crypto, dedup: false });
        const signed = signDelivery({
          token: tokens[tokenIndex]!,
          payload: envelope,
          timestamp: NOW_SECONDS - age,
          deliveryId,
        });
        const event = await receiver.verify({
          headers: shapeHeaders(toRaw(signed.headers), shape),
          body: BODY_FORMS[form]!(signed.body as string, pad),
        });

        // What was sent is what JSON can carry: the envelope after one JSON round trip.
        const sent = JSON.parse(JSON.stringify(envelope)) as typeof envelope;
        expect(event.payload).toEqual(sent);
        expect(Object.keys(event.payload)).toEqual(Object.keys(sent));
        expect(event.name).toBe(envelope.event);
        expect(event.type).toBe(KNOWN.includes(envelope.event) ? envelope.event : 'unknown');
        expect(event.timestamp).toBe(envelope.timestamp);
        expect(event.tokenIndex).toBe(tokenIndex);
        expect(event.deliveryId).toBe(signed.headers['X-Service-Delivery-Id']);
        if (event.type === 'article.sync' || event.type === 'article.trash') {
          expect(event.article).toEqual(sent.article);
          expect(event.profile).toEqual(sent.profile);
        }
      });
    },
    PROPERTY_TIMEOUT_MS,
  );
});
