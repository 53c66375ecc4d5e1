import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { verifyWebhook } from 'webhook-cms-receiver/fetch';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_wiring_token';
const post = (delivery: { headers: Record<string, string>; body: string | Uint8Array<ArrayBuffer> }) =>
  new Request('http://127.0.0.1/webhook', { method: 'POST', headers: delivery.headers, body: delivery.body });

describe('receiver wiring', () => {
  it('reports refusals from verifyWebhook middleware to onRejected, as webhookHandler does', async () => {
    const onRejected = vi.fn();
    const verify = verifyWebhook(createReceiver({ token, onRejected }));
    const tampered = signDelivery({ token, payload: articleSyncPayload() });
    const result = await verify(post({ ...tampered, body: String(tampered.body).replace('published', 'archived') }));
    expect('response' in result && result.response.status).toBe(403);
    const stale = signDelivery({ token, payload: testPayload(), timestamp: Math.floor(Date.now() / 1000) - 600 });
    await verify(post(stale));
    expect(onRejected.mock.calls.map(([error]) => error.code)).toEqual(['invalid_signature', 'request_expired']);
  });

  it('answers 401 before looking at a body that is not raw bytes', async () => {
    const answer = await createReceiver({ token }).handle({ headers: {}, body: { event: 'test' } as never });
    expect(answer).toEqual({ status: 401, body: { error: 'Invalid token' } });
  });

  it('moves the default dedup store with the receiver clock, so lease and retention can be tested', async () => {
    let now = Date.now();
    const receiver = createReceiver({ token, now: () => now });
    const delivery = signDelivery({
      token,
      payload: articleSyncPayload(),
      deliveryId: 'clock-1',
      timestamp: Math.floor(now / 1000),
    });
    const handler = vi.fn();
    await receiver.handle(delivery, { 'article.sync': handler });
    now += 72 * 3600_000;
    const again = signDelivery({
      token,
      payload: articleSyncPayload(),
      deliveryId: 'clock-1',
      timestamp: Math.floor(now / 1000),
    });
    expect((await receiver.handle(again, { 'article.sync': handler })).body).toEqual({ ok: true });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('lets a receiver from the ESM build drive an adapter from the CommonJS build', async () => {
    // npm test builds dist/ first (pretest); the two builds have separate module state.
    const esm = (await import('../../dist/index.js')) as typeof import('webhook-cms-receiver');
    const cjsFetch = createRequire(import.meta.url)(
      '../../dist/fetch.cjs',
    ) as typeof import('webhook-cms-receiver/fetch');
    const handle = cjsFetch.webhookHandler(esm.createReceiver({ token }), {});
    const response = await handle(post(signDelivery({ token, payload: testPayload() })));
    expect(response.status).toBe(200);
    const refused = await handle(post({ headers: { authorization: 'Bearer wrong' }, body: '{}' }));
    expect(refused.status).toBe(401);
  });

  it('makes instanceof WebhookError true across the ESM and CommonJS builds', async () => {
    const esm = (await import('../../dist/index.js')) as typeof import('webhook-cms-receiver');
    const cjs = createRequire(import.meta.url)('../../dist/index.cjs') as typeof import('webhook-cms-receiver');
    const thrown = await cjs
      .createReceiver({ token })
      .verify({ headers: {}, body: '{}' })
      .catch((error: unknown) => error);
    expect(thrown instanceof esm.WebhookError).toBe(true);
    expect(thrown instanceof cjs.WebhookError).toBe(true);
    expect(new Error('x') instanceof esm.WebhookError).toBe(false);
  });
});
