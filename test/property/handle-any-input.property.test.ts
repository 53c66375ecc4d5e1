import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createReceiver,
  isWebhookError,
  type CryptoProvider,
  type DeliveryInput,
  type Answer,
  type ReceiverOptions,
} from 'webhook-cms-receiver';
import { signDelivery } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';
import { ageArb, deepJsonArb, envelopeArb, NOW_SECONDS, nowMs, syncArticleArb, textArb } from './arbitraries.js';
import { PROPERTY_TIMEOUT_MS, propertyFile } from './budget.js';
import {
  anyInputArb,
  CONTRACT_STATUSES,
  handlerPlanArb,
  handlersFor,
  MAX_BODY_BYTES,
  type HandlerPlan,
} from './inputs.js';
import { expectObjectPrototypeUntouched, guardPrototypes } from './pristine.js';

const TOKEN = 'secret-token';

/** Hooks that sometimes throw: a throwing hook must not change the answer. */
const hookPlanArb = fc.record({
  rejectedThrows: fc.boolean(),
  duplicateThrows: fc.boolean(),
  errorThrows: fc.boolean(),
});

function receiverFor(
  crypto: CryptoProvider,
  hooks: { rejectedThrows: boolean; duplicateThrows: boolean; errorThrows: boolean },
  maxBodyBytes = MAX_BODY_BYTES,
) {
  const unexpected: string[] = [];
  const options: ReceiverOptions = {
    token: TOKEN,
    now: nowMs,
    crypto,
    maxBodyBytes,
    onRejected: (error) => {
      // No plain-data input may reach the "unexpected" branch of verification.
      if (error.code === 'internal_error') unexpected.push(error.reason);
      if (hooks.rejectedThrows) throw new Error('onRejected hook failed');
    },
    onDuplicate: () => {
      if (hooks.duplicateThrows) throw new Error('onDuplicate hook failed');
    },
    onError: () => {
      if (hooks.errorThrows) throw new Error('onError hook failed');
    },
  };
  return { receiver: createReceiver(options), unexpected };
}

/** The contract's answer shape, and a 500 only when a handler threw. */
function expectContractAnswer(answer: Answer, handlerThrew: boolean): void {
  expect(CONTRACT_STATUSES.has(answer.status), `status ${answer.status}`).toBe(true);
  expect(JSON.parse(JSON.stringify(answer.body))).toEqual(answer.body);
  if (answer.status === 200) expect(answer.body).toMatchObject({ ok: true });
  else expect(typeof (answer.body as { error?: unknown }).error).toBe('string');
  // A 500 is a handler that threw, or a host fault: a body handed over already parsed.
  if (answer.status === 500 && (answer.body as { error?: string }).error !== 'Server misconfigured') {
    expect(handlerThrew, 'a 500 without a throwing handler').toBe(true);
    expect(answer.body).toEqual({ error: 'Handler failed' });
  }
}

async function handleNeverRejects(handle: Promise<Answer>): Promise<Answer> {
  return handle.catch((thrown: unknown) => {
    throw new Error(`handle() rejected: ${String(thrown)}`);
  });
}

/** Signed bodies that pass checks 1 to 5, so checks 6 and 7 and the handlers see arbitrary JSON. */
const signedBodyArb = fc.oneof(
  fc.json(),
  textArb,
  deepJsonArb,
  fc.uint8Array({ maxLength: 200 }),
  envelopeArb.map((envelope) => `\uFEFF${JSON.stringify(envelope)}`),
  fc
    .tuple(
      envelopeArb,
      fc.constantFrom('event', 'timestamp', 'article', 'profile'),
      fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    )
    .map(([envelope, key, value]) => JSON.stringify({ ...envelope, [key]: value })),
  fc
    .tuple(
      syncArticleArb,
      fc.constantFrom('id', 'title', 'tags', 'status', 'featured_image_url', 'published_at'),
      fc.jsonValue({ maxDepth: 1 }),
    )
    .map(([article, key, value]) =>
      JSON.stringify({
        event: 'article.sync',
        timestamp: 1,
        article: { ...article, [key]: value },
        profile: { id: 'p', domain: 'd' },
      }),
    ),
  fc.constantFrom(
    '{"event":"article.sync","timestamp":1,"__proto__":{"article":{"id":"a","slug":"s"},"profile":{"id":"p","domain":"d"}}}',
    '{"event":"article.trash","timestamp":1,"article":{"__proto__":{"id":"a","slug":"s"}},"profile":{"id":"p","domain":"d"}}',
    '{"event":"test","timestamp":1,"constructor":{"prototype":{"polluted":true}},"__proto__":{"polluted":true}}',
    '{"__proto__":{"event":"test","timestamp":1}}',
  ),
);

const signedCaseArb = fc.record({
  body: signedBodyArb,
  age: ageArb,
  deliveryId: fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })), { nil: null }),
  plan: handlerPlanArb,
  hooks: hookPlanArb,
});

describe('handle() never throws, and answers 500 only when a handler threw', () => {
  const check = propertyFile('handle() on any input', ['anyInput', 'signedJunk']);
  guardPrototypes();
  afterEach(() => vi.restoreAllMocks());

  it.each(providers)(
    'with %s: inputs of any shape, headers and bodies of any type and size',
    async (_name, crypto) => {
      vi.spyOn(console, 'error').mockImplementation(() => {}); // throwing hooks are reported there
      await check('anyInput', fc.tuple(anyInputArb, handlerPlanArb, hookPlanArb), async ([input, plan, hooks]) => {
        const { receiver, unexpected } = receiverFor(crypto, hooks);
        const threw = { value: false };
        const answer = await handleNeverRejects(
          receiver.handle(input as DeliveryInput, handlersFor(plan as HandlerPlan, threw)),
        );
        expectContractAnswer(answer, threw.value);
        await receiver.verify(input as DeliveryInput).then(
          () => undefined,
          (error: unknown) => expect(isWebhookError(error), String(error)).toBe(true),
        );
        expect(unexpected).toEqual([]);
        expectObjectPrototypeUntouched();
      });
    },
    PROPERTY_TIMEOUT_MS,
  );

  it.each(providers)(
    'with %s: validly signed bodies of arbitrary JSON, broken envelopes and __proto__ keys',
    async (_name, crypto) => {
      vi.spyOn(console, 'error').mockImplementation(() => {});
      await check('signedJunk', signedCaseArb, async ({ body, age, deliveryId, plan, hooks }) => {
        const { receiver, unexpected } = receiverFor(crypto, hooks, 1024 * 1024);
        const signed = signDelivery({ token: TOKEN, payload: body, timestamp: NOW_SECONDS - age, deliveryId });
        const threw = { value: false };
        const answer = await handleNeverRejects(receiver.handle(signed, handlersFor(plan as HandlerPlan, threw)));
        expectContractAnswer(answer, threw.value);
        // Checks 1-5 passed, so only the payload checks may refuse it.
        expect([200, 400, 500]).toContain(answer.status);
        await receiver.verify(signed).then(
          (event) => expect(Object.getPrototypeOf(event.payload)).toBe(Object.prototype),
          (error: unknown) =>
            expect((error as { code?: string }).code).toMatch(
              /^(invalid_payload|missing_delivery_id|invalid_delivery_id)$/,
            ),
        );
        expect(unexpected).toEqual([]);
        expectObjectPrototypeUntouched();
      });
    },
    PROPERTY_TIMEOUT_MS,
  );
});
