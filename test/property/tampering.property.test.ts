import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, isWebhookError, type Envelope, type WebhookErrorCode } from 'webhook-cms-receiver';
import { signDelivery } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';
import {
  ageArb,
  envelopeArb,
  needsDeliveryId,
  NOW_SECONDS,
  nowMs,
  TOLERANCE_SECONDS,
  tokenArb,
  tokenListArb,
} from './arbitraries.js';
import { PROPERTY_TIMEOUT_MS, propertyFile } from './budget.js';
import { headerShapeArb, recase, shapeHeaders, type RawHeaders } from './header-shapes.js';

/** A delivery on its way in: raw header pairs and body bytes, which a mutation may change. */
interface Wire {
  raw: RawHeaders;
  body: Uint8Array;
}

/** What a change must lead to: acceptance (it was neutral) or refusal with this code. */
type Outcome = { accept: true; deliveryId?: string | null } | { refuse: WebhookErrorCode };

interface Mutation {
  label: string;
  apply(wire: Wire, context: { envelope: Envelope; tokens: string[]; signedWith: number }): Outcome;
}

const utf8 = new TextEncoder();
const HEX = '0123456789abcdef';
const NON_DIGITS = '+-.,e_x/:';

const find = (raw: RawHeaders, lower: string) => raw.findIndex(([name]) => name.toLowerCase() === lower);
const headerValue = (raw: RawHeaders, lower: string) => raw[find(raw, lower)]![1];
const setValue = (raw: RawHeaders, lower: string, value: string) => void (raw[find(raw, lower)]![1] = value);
const remove = (raw: RawHeaders, lower: string) => void raw.splice(find(raw, lower), 1);

const bodyMutations = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(
    ([at, xor]): Mutation => ({
      label: 'flip a body byte',
      apply(wire) {
        const body = wire.body.slice();
        body[at % body.length]! ^= xor;
        wire.body = body;
        return { refuse: 'invalid_signature' };
      },
    }),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(
    ([at, byte]): Mutation => ({
      label: 'insert a body byte',
      apply(wire) {
        const index = at % (wire.body.length + 1);
        wire.body = new Uint8Array([...wire.body.subarray(0, index), byte, ...wire.body.subarray(index)]);
        return { refuse: 'invalid_signature' };
      },
    }),
  ),
  fc.nat().map(
    (at): Mutation => ({
      label: 'drop a body byte',
      apply(wire) {
        const index = at % wire.body.length;
        wire.body = new Uint8Array([...wire.body.subarray(0, index), ...wire.body.subarray(index + 1)]);
        return { refuse: 'invalid_signature' };
      },
    }),
  ),
  fc.constantFrom(0, 1, 2).map(
    (indent): Mutation => ({
      // What a JSON body parser followed by JSON.stringify does: the same data, other bytes.
      label: 're-serialise the body',
      apply(wire) {
        const again = utf8.encode(JSON.stringify(JSON.parse(new TextDecoder().decode(wire.body)), null, indent));
        const same = again.length === wire.body.length && again.every((byte, i) => byte === wire.body[i]);
        wire.body = again;
        return same ? { accept: true } : { refuse: 'invalid_signature' };
      },
    }),
  ),
);

const timestampMutations = fc.oneof(
  fc
    .integer({ min: -2 * TOLERANCE_SECONDS, max: 2 * TOLERANCE_SECONDS })
    .filter((shift) => shift !== 0)
    .map(
      (shift): Mutation => ({
        label: 'shift the timestamp',
        apply(wire) {
          const moved = Number(headerValue(wire.raw, 'x-service-timestamp')) + shift;
          setValue(wire.raw, 'x-service-timestamp', String(moved));
          return {
            refuse: Math.abs(NOW_SECONDS - moved) < TOLERANCE_SECONDS ? 'invalid_signature' : 'request_expired',
          };
        },
      }),
    ),
  fc.constant<Mutation>({
    // The same instant in other text: the signature covers the header's exact text.
    label: 'add a leading zero to the timestamp',
    apply(wire) {
      setValue(wire.raw, 'x-service-timestamp', `0${headerValue(wire.raw, 'x-service-timestamp')}`);
      return { refuse: 'invalid_signature' };
    },
  }),
  fc.tuple(fc.nat(), fc.constantFrom(...NON_DIGITS)).map(
    ([at, char]): Mutation => ({
      label: 'put a non-digit into the timestamp',
      apply(wire) {
        const text = headerValue(wire.raw, 'x-service-timestamp');
        const index = at % (text.length + 1);
        setValue(wire.raw, 'x-service-timestamp', text.slice(0, index) + char + text.slice(index));
        return { refuse: 'invalid_timestamp' };
      },
    }),
  ),
  fc.constant<Mutation>({
    label: 'remove the timestamp',
    apply(wire) {
      remove(wire.raw, 'x-service-timestamp');
      return { refuse: 'invalid_timestamp' };
    },
  }),
);

const signatureMutations = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 15 })).map(
    ([at, delta]): Mutation => ({
      label: 'change one hex digit of the signature',
      apply(wire) {
        const text = headerValue(wire.raw, 'x-service-signature');
        const index = 7 + (at % 64);
        const digit = HEX[(HEX.indexOf(text[index]!.toLowerCase()) + delta) % 16]!;
        setValue(wire.raw, 'x-service-signature', text.slice(0, index) + digit + text.slice(index + 1));
        return { refuse: 'invalid_signature' };
      },
    }),
  ),
  fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }).map(
    (mask): Mutation => ({
      label: 'change the case of the signature hex',
      apply(wire) {
        const text = headerValue(wire.raw, 'x-service-signature');
        setValue(wire.raw, 'x-service-signature', `sha256=${recase(text.slice(7), mask)}`);
        return { accept: true };
      },
    }),
  ),
  fc
    .constantFrom(
      (text: string) => text.slice(0, -1),
      (text: string) => `${text}0`,
      (text: string) => text.slice(7),
      (text: string) => `sha1=${text.slice(7)}`,
      (text: string) => `sha256=${text.slice(7, 39)}`,
      (text: string) => `sha256=${text.slice(7)},${text}`,
    )
    .map(
      (change): Mutation => ({
        label: 'reshape the signature',
        apply(wire) {
          setValue(wire.raw, 'x-service-signature', change(headerValue(wire.raw, 'x-service-signature')));
          return { refuse: 'invalid_signature' };
        },
      }),
    ),
  fc.constant<Mutation>({
    label: 'remove the signature',
    apply(wire) {
      remove(wire.raw, 'x-service-signature');
      return { refuse: 'invalid_signature' };
    },
  }),
);

const tokenMutations = fc.oneof(
  tokenArb.map(
    (other): Mutation => ({
      label: 'send another token',
      apply(wire, { tokens }) {
        if (tokens.includes(other)) return { accept: true }; // unchanged in effect: skip without fc.pre
        setValue(wire.raw, 'authorization', `Bearer ${other}`);
        return { refuse: 'invalid_token' };
      },
    }),
  ),
  fc.nat().map(
    (pick): Mutation => ({
      // Rotation: the Bearer token names one configured token, the HMAC was keyed with another.
      label: 'present a different configured token than the one that signed',
      apply(wire, { tokens, signedWith }) {
        const other = pick % tokens.length;
        if (other === signedWith) return { accept: true };
        setValue(wire.raw, 'authorization', `Bearer ${tokens[other]}`);
        return { refuse: 'invalid_signature' };
      },
    }),
  ),
  fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }).map(
    (mask): Mutation => ({
      label: 'change the case of the Bearer scheme',
      apply(wire) {
        const value = headerValue(wire.raw, 'authorization');
        setValue(wire.raw, 'authorization', recase('bearer', mask) + value.slice(6));
        return { accept: true };
      },
    }),
  ),
  fc.constantFrom('Basic ', 'Token ', 'Bearer', '').map(
    (scheme): Mutation => ({
      label: 'use another scheme',
      apply(wire) {
        setValue(wire.raw, 'authorization', scheme + headerValue(wire.raw, 'authorization').slice(7));
        return { refuse: 'invalid_token' };
      },
    }),
  ),
  fc.constant<Mutation>({
    label: 'remove Authorization',
    apply(wire) {
      remove(wire.raw, 'authorization');
      return { refuse: 'invalid_token' };
    },
  }),
);

const DUPLICATE_REFUSAL: Record<string, WebhookErrorCode> = {
  authorization: 'invalid_token',
  'x-service-timestamp': 'invalid_timestamp',
  'x-service-signature': 'invalid_signature',
};

const headerMutations = fc.oneof(
  fc
    .tuple(fc.constantFrom(...Object.keys(DUPLICATE_REFUSAL)), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
    .map(
      ([lower, mask]): Mutation => ({
        // Repeats are joined with ", " as Fetch joins them, so no copy silently wins.
        label: `duplicate ${lower}`,
        apply(wire) {
          wire.raw.push([recase(lower, mask), headerValue(wire.raw, lower)]);
          return { refuse: DUPLICATE_REFUSAL[lower]! };
        },
      }),
    ),
  fc.uuid().map(
    (id): Mutation => ({
      // The id is not signed (the contract's replay guard covers that); changing it is not tampering with content.
      label: 'change the delivery id',
      apply(wire) {
        setValue(wire.raw, 'x-service-delivery-id', id);
        return { accept: true, deliveryId: id };
      },
    }),
  ),
  fc.constant<Mutation>({
    label: 'remove the delivery id',
    apply(wire, { envelope }) {
      remove(wire.raw, 'x-service-delivery-id');
      return needsDeliveryId(envelope) ? { refuse: 'missing_delivery_id' } : { accept: true, deliveryId: null };
    },
  }),
  fc.constantFrom('article.trash', 'test', 'made.up').map(
    (name): Mutation => ({
      label: 'change X-Service-Event',
      apply(wire) {
        wire.raw.push(['X-Service-Event', name]);
        return { accept: true };
      },
    }),
  ),
  fc.constant<Mutation>({ label: 'leave it alone', apply: () => ({ accept: true }) }),
);

const mutationArb = fc.oneof(bodyMutations, timestampMutations, signatureMutations, tokenMutations, headerMutations);

const caseArb = fc.record({
  tokens: tokenListArb,
  signedWith: fc.nat(),
  envelope: envelopeArb,
  age: ageArb,
  mutation: mutationArb,
  shape: headerShapeArb,
});

describe('any change to a validly signed delivery is refused unless it is neutral', () => {
  const check = propertyFile('tampering', ['tampering']);

  it.each(providers)(
    'with %s: each change gets the check it breaks, neutral ones still verify to the same payload',
    async (_name, crypto) => {
      await check('tampering', caseArb, async ({ tokens, signedWith: pick, envelope, age, mutation, shape }) => {
        const signedWith = pick % tokens.length;
        const receiver = createReceiver({
          token: tokens,
          now: nowMs,
          crypto,
          dedup: false,
          toleranceSeconds: TOLERANCE_SECONDS,
        });
        const signed = signDelivery({ token: tokens[signedWith]!, payload: envelope, timestamp: NOW_SECONDS - age });
        const wire: Wire = { raw: Object.entries(signed.headers), body: utf8.encode(signed.body as string) };
        const originalId = signed.headers['X-Service-Delivery-Id']!;
        const outcome = mutation.apply(wire, { envelope, tokens, signedWith });
        const result = await receiver.verify({ headers: shapeHeaders(wire.raw, shape), body: wire.body }).then(
          (event) => ({ event }),
          (error: unknown) => ({ error }),
        );
        if ('accept' in outcome) {
          if (!('event' in result))
            throw new Error(`"${mutation.label}" should be accepted, got ${String(result.error)}`);
          expect(result.event.payload).toEqual(JSON.parse(signed.body as string));
          expect(result.event.deliveryId).toBe(outcome.deliveryId === undefined ? originalId : outcome.deliveryId);
          expect(result.event.tokenIndex).toBe(signedWith);
        } else {
          if (!('error' in result))
            throw new Error(`"${mutation.label}" should be refused with ${outcome.refuse}, but verified`);
          expect(isWebhookError(result.error), String(result.error)).toBe(true);
          expect({ label: mutation.label, code: (result.error as { code: string }).code }).toEqual({
            label: mutation.label,
            code: outcome.refuse,
          });
        }
      });
    },
    PROPERTY_TIMEOUT_MS,
  );
});
