import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  articleSyncPayload,
  articleTrashPayload,
  signDelivery,
  testPayload,
  type SignedDelivery,
} from 'webhook-cms-receiver/testing';

// The example reads its token on the first request, so it is set before any POST.
const token = `whk_${randomUUID().replaceAll('-', '')}`;
const previousToken = process.env.WEBHOOK_TOKEN;
beforeAll(() => {
  process.env.WEBHOOK_TOKEN = token;
});
afterAll(() => {
  if (previousToken === undefined) delete process.env.WEBHOOK_TOKEN;
  else process.env.WEBHOOK_TOKEN = previousToken;
});

const route = await import('../../examples/nextjs-route/app/api/webhook/route.js');

/** Calls the exported POST the way Next.js does: with a real Fetch Request. */
async function post(delivery: SignedDelivery): Promise<{ status: number; body: unknown }> {
  // Copied into a fresh Uint8Array only because TS 5.9's BodyInit rejects Uint8Array<ArrayBufferLike>.
  const body = typeof delivery.body === 'string' ? delivery.body : new Uint8Array(delivery.body);
  const request = new Request('http://127.0.0.1:3000/api/webhook', { method: 'POST', headers: delivery.headers, body });
  const response = await route.POST(request);
  return { status: response.status, body: await response.json() };
}

const sync = articleSyncPayload({ article: { slug: 'nextjs-route-article' } });
const publishedUrl = 'https://blog.example.com/blog/nextjs-route-article';

describe('examples/nextjs-route: app/api/webhook/route.ts', () => {
  it('declares a runtime Next.js accepts for a route handler', () => {
    expect(['nodejs', 'edge']).toContain(route.runtime);
  });

  it('acknowledges the dashboard test delivery', async () => {
    expect(await post(signDelivery({ token, payload: testPayload() }))).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers article.sync with the published_url built from the profile domain and slug', async () => {
    const answer = await post(signDelivery({ token, payload: sync, deliveryId: 'next-sync-1' }));
    expect(answer).toEqual({ status: 200, body: { ok: true, published_url: publishedUrl } });
  });

  it('answers a redelivery of the same id (fresh timestamp and signature) from the dedup store', async () => {
    const id = 'next-sync-2';
    const now = Math.floor(Date.now() / 1000);
    await post(signDelivery({ token, payload: sync, deliveryId: id, timestamp: now - 5 }));
    const again = await post(signDelivery({ token, payload: sync, deliveryId: id, timestamp: now }));
    expect(again).toEqual({ status: 200, body: { ok: true, published_url: publishedUrl, duplicate: true } });
  });

  it('acknowledges article.trash', async () => {
    const answer = await post(
      signDelivery({ token, payload: articleTrashPayload({ article: { slug: 'nextjs-route-article' } }) }),
    );
    expect(answer).toEqual({ status: 200, body: { ok: true } });
  });

  it('refuses a wrong token with 401 Invalid token', async () => {
    const answer = await post(signDelivery({ token: `${token}-old`, payload: sync }));
    expect(answer).toEqual({ status: 401, body: { error: 'Invalid token' } });
  });

  it('refuses a body changed after signing with 403 Invalid signature', async () => {
    const signed = signDelivery({ token, payload: sync });
    const answer = await post({ ...signed, body: String(signed.body).replace('Ten SEO tips', 'Ten SE0 tips') });
    expect(answer).toEqual({ status: 403, body: { error: 'Invalid signature' } });
  });

  it('refuses a delivery signed ten minutes ago with 403 Request expired', async () => {
    const answer = await post(signDelivery({ token, payload: sync, timestamp: Math.floor(Date.now() / 1000) - 600 }));
    expect(answer).toEqual({ status: 403, body: { error: 'Request expired' } });
  });
});
