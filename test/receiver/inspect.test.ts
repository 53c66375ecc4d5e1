import { describe, expect, it } from 'vitest';
import { createReceiver, type InspectedDelivery } from 'webhook-cms-receiver';
import { serveRequest } from 'webhook-cms-receiver/adapter-kit';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_inspect_test_token_abcdef';

describe('the inspect option (for development tools)', () => {
  it('sees accepted, refused and pre-body refusals, with Authorization redacted and the raw body', async () => {
    const seen: InspectedDelivery[] = [];
    const receiver = createReceiver({ token, inspect: (delivery) => void seen.push(delivery) });
    const good = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'seen-1' });
    await receiver.handle(good, { 'article.sync': () => ({ publishedUrl: 'https://x/y' }) });
    const tampered = { ...good, body: String(good.body).replace('"title"', '"Title"') };
    await receiver.handle(tampered, {});
    await serveRequest(receiver, { method: 'GET', headers: good.headers, body: () => '' }, {});

    expect(seen.map((d) => d.answer.status)).toEqual([200, 403, 405]);
    expect(seen[0]).toMatchObject({
      event: { name: 'article.sync', type: 'article.sync', deliveryId: 'seen-1' },
      answer: { status: 200, body: { ok: true, published_url: 'https://x/y' } },
      body: good.body,
    });
    expect(seen[1]?.error).toMatchObject({ code: 'invalid_signature' });
    expect(seen[2]).toMatchObject({ method: 'GET', body: undefined, error: { code: 'method_not_allowed' } });
    for (const delivery of seen) {
      expect(delivery.headers.authorization).toBe('Bearer [redacted]');
      expect(JSON.stringify(delivery)).not.toContain(token);
    }
  });
});
