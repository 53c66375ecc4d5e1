import { describe, expect, it, vi } from 'vitest';
import { createReceiver, type InspectedDelivery } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_odd_inputs_token';
const receiver = () => createReceiver({ token });

describe('inputs a framework may hand over', () => {
  it('answers 500 Server misconfigured (body_already_parsed) for a body that is an array, as for an object', async () => {
    const onRejected = vi.fn();
    const signed = signDelivery({ token, payload: '[1,2]' });
    const answer = await createReceiver({ token, onRejected }).handle({
      headers: signed.headers,
      body: [1, 2] as never,
    });
    expect(answer).toEqual({ status: 500, body: { error: 'Server misconfigured' } });
    expect(onRejected.mock.calls[0]?.[0]).toMatchObject({ code: 'body_already_parsed' });
    expect(onRejected.mock.calls[0]?.[0].reason).toMatch(/got an array: it looks already parsed/);
  });

  it('answers 400 invalid_payload, not 500, for a body that is a number or null', async () => {
    const onRejected = vi.fn();
    const signed = signDelivery({ token, payload: testPayload() });
    const r = createReceiver({ token, onRejected });
    expect((await r.handle({ headers: signed.headers, body: 42 as never })).status).toBe(400);
    expect((await r.handle({ headers: signed.headers, body: null as never })).status).toBe(400);
    expect(onRejected.mock.calls.map(([error]) => error.code)).toEqual(['invalid_payload', 'invalid_payload']);
    expect(onRejected.mock.calls[0]?.[0].reason).toMatch(/got number\.$/);
    expect(onRejected.mock.calls[1]?.[0].reason).toMatch(/got null\.$/);
  });

  it('answers 401, not a crash, for an input that is not an object at all', async () => {
    for (const input of [null, undefined, 42, 'body']) {
      expect(await receiver().handle(input as never, {})).toEqual({ status: 401, body: { error: 'Invalid token' } });
    }
  });

  it('answers 401 for headers that are null, an array or a string: there is no token to read', async () => {
    const signed = signDelivery({ token, payload: testPayload() });
    for (const headers of [null, [['authorization', `Bearer ${token}`]], `Bearer ${token}`]) {
      expect(await receiver().handle({ headers: headers as never, body: signed.body })).toEqual({
        status: 401,
        body: { error: 'Invalid token' },
      });
    }
  });

  it('reads the token from a headers object whose get() answers a non-string as missing', async () => {
    const signed = signDelivery({ token, payload: testPayload() });
    const headers = { get: (name: string) => (name === 'authorization' ? 42 : null) };
    expect((await receiver().handle({ headers: headers as never, body: signed.body })).status).toBe(401);
  });
});

describe('events without a delivery id', () => {
  it('runs the handler for every test event without an id: none is answered as a duplicate of another', async () => {
    const r = receiver();
    const handler = vi.fn();
    for (let i = 0; i < 3; i++) {
      const answer = await r.handle(signDelivery({ token, payload: testPayload(), deliveryId: null }), {
        test: handler,
      });
      expect(answer).toEqual({ status: 200, body: { ok: true } });
    }
    expect(handler).toHaveBeenCalledTimes(3);
  });

  it('runs the handler for unknown events without an id every time, even when the store is busy', async () => {
    const claim = vi.fn(() => ({ state: 'in-progress' as const }));
    const r = createReceiver({ token, dedup: { claim, complete: vi.fn(), release: vi.fn() } });
    const handler = vi.fn();
    const payload = { event: 'article.future', timestamp: Math.floor(Date.now() / 1000) };
    for (let i = 0; i < 2; i++) {
      expect((await r.handle(signDelivery({ token, payload, deliveryId: null }), { unknown: handler })).status).toBe(
        200,
      );
    }
    expect(handler).toHaveBeenCalledTimes(2);
    expect(claim).not.toHaveBeenCalled();
  });
});

describe('the inspect option’s redaction', () => {
  const inspectAuthorization = async (authorization: string) => {
    const seen: InspectedDelivery[] = [];
    const r = createReceiver({ token, inspect: (delivery) => void seen.push(delivery) });
    const signed = signDelivery({ token, payload: articleSyncPayload() });
    await r.handle({ headers: { ...signed.headers, Authorization: authorization }, body: signed.body });
    return seen[0]?.headers.authorization;
  };

  it('shows a header without a space as [redacted] alone, none of the token', async () => {
    expect(await inspectAuthorization(token)).toBe('[redacted]');
  });

  it('shows a header that starts with a space as [redacted] alone', async () => {
    expect(await inspectAuthorization(` ${token}`)).toBe('[redacted]');
  });

  it('keeps the scheme of a header with a space, whatever it is', async () => {
    expect(await inspectAuthorization(`Digest ${token}`)).toBe('Digest [redacted]');
  });
});
