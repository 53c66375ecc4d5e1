import { describe, expect, expectTypeOf, it } from 'vitest';
import { articleSyncPayload, type SignedDelivery, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// Checked by `tsc -p tsconfig.test.json` (the typecheck): the body's type follows the payload's.
describe('signDelivery() types', () => {
  it('gives a string body for a payload object, so JSON.parse takes it as is', () => {
    const signed = signDelivery({ token: 't0k', payload: articleSyncPayload() });
    expectTypeOf(signed.body).toEqualTypeOf<string>();
    expect(JSON.parse(signed.body).event).toBe('article.sync');
  });

  it('gives a string body for a string payload, and bytes for bytes', () => {
    expectTypeOf(signDelivery({ token: 't0k', payload: '{"event":"test"}' }).body).toEqualTypeOf<string>();
    const bytes = new TextEncoder().encode(JSON.stringify(testPayload()));
    const signed = signDelivery({ token: 't0k', payload: bytes });
    expectTypeOf(signed.body).toEqualTypeOf<Uint8Array<ArrayBuffer>>();
    expect(signed.body).toBeInstanceOf(Uint8Array);
  });

  it('keeps the wide type for a payload of either kind, and SignedDelivery takes every result', () => {
    const either = (bytes: boolean): object | Uint8Array => (bytes ? new Uint8Array() : testPayload());
    const signed = signDelivery({ token: 't0k', payload: either(false) });
    expectTypeOf(signed.body).toEqualTypeOf<string | Uint8Array<ArrayBuffer>>();
    const mixed = signDelivery({ token: 't0k', payload: Math.random() < 2 ? testPayload() : new Uint8Array() });
    expectTypeOf(mixed.body).toEqualTypeOf<string | Uint8Array<ArrayBuffer>>();
    expectTypeOf(signDelivery({ token: 't0k', payload: testPayload() })).toExtend<SignedDelivery>();
    expect(typeof signed.body).toBe('string');
  });
});
