import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { signDelivery } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';
import { envelopeArb, needsDeliveryId, NOW_SECONDS, nowMs, textArb } from './arbitraries.js';
import { PROPERTY_TIMEOUT_MS, propertyFile } from './budget.js';
import { expectObjectPrototypeUntouched, guardPrototypes } from './pristine.js';

const TOKEN = 'prototype-token';
const trickyKeyArb = fc.constantFrom('__proto__', 'constructor', 'prototype');

/** JSON text with `__proto__`, `constructor` and `prototype` keys at any depth; JSON.stringify could never write these. */
type Tree = string | [string, Tree][];
const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.json({ maxDepth: 1 }),
    fc.array(fc.tuple(fc.oneof(trickyKeyArb, textArb), tie('tree')), { maxLength: 4 }),
  ),
}));

const toText = (node: Tree): string =>
  typeof node === 'string'
    ? node
    : `{${node.map(([key, value]) => `${JSON.stringify(key)}:${toText(value)}`).join(',')}}`;

const caseArb = fc.record({
  envelope: envelopeArb,
  extras: fc.array(fc.tuple(trickyKeyArb, tree), { minLength: 1, maxLength: 3 }),
  hideRequiredFields: fc.boolean(),
});

describe('no generated input pollutes Object.prototype or satisfies the schema through it', () => {
  const check = propertyFile('prototype keys', ['prototypeKeys']);
  guardPrototypes();

  it.each(providers)(
    'with %s: __proto__/constructor keys stay plain data, and fields hidden under __proto__ do not count',
    async (_name, crypto) => {
      await check('prototypeKeys', caseArb, async ({ envelope, extras, hideRequiredFields }) => {
        const receiver = createReceiver({ token: TOKEN, now: nowMs, crypto });
        const extraText = extras.map(([key, value]) => `${JSON.stringify(key)}:${toText(value)}`).join(',');
        const hides = hideRequiredFields && needsDeliveryId(envelope);
        const head = { event: envelope.event, timestamp: envelope.timestamp };
        const body = hides
          ? `${JSON.stringify(head).slice(0, -1)},"__proto__":${JSON.stringify({ article: envelope.article, profile: envelope.profile })},${extraText}}`
          : `${JSON.stringify(envelope).slice(0, -1)},${extraText}}`;
        const seen: WebhookEvent[] = [];
        const record = (event: WebhookEvent) => void seen.push(event);
        const signed = signDelivery({ token: TOKEN, payload: body, timestamp: NOW_SECONDS });
        const answer = await receiver.handle(signed, {
          'article.sync': record,
          'article.trash': record,
          test: record,
          unknown: record,
        });

        expectObjectPrototypeUntouched();
        if (hides) {
          expect(answer).toEqual({ status: 400, body: { error: 'Invalid payload' } });
          expect(seen).toEqual([]);
          return;
        }
        expect(answer.status).toBe(200);
        const payload = seen[0]!.payload as Record<string, unknown>;
        expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
        for (const [key] of extras) expect(Object.hasOwn(payload, key), key).toBe(true);
        expect(payload.event).toBe(envelope.event);
      });
    },
    PROPERTY_TIMEOUT_MS,
  );
});
