import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createReceiver, type InspectedDelivery } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_inspect_details_token';

function inspecting(now?: () => number) {
  const seen: InspectedDelivery[] = [];
  const receiver = createReceiver({ token, ...(now ? { now } : {}), inspect: (d) => void seen.push(d) });
  return { receiver, seen };
}

describe('what the inspect option sees', () => {
  it('shows exactly the headers a developer needs, Authorization redacted, and no others', async () => {
    const { receiver, seen } = inspecting();
    const signed = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'shown' });
    const headers = {
      ...signed.headers,
      'Content-Length': '10',
      'User-Agent': 'Service/1.0',
      'X-Signature': 'other-scheme',
      'X-Hub-Signature-256': 'sha256=github',
      Cookie: 'session=secret',
      'X-Forwarded-For': '10.0.0.1',
    };
    await receiver.handle({ headers, body: signed.body });
    expect(seen[0]!.headers).toEqual({
      authorization: 'Bearer [redacted]',
      'content-type': 'application/json',
      'content-length': '10',
      'x-service-timestamp': signed.headers['X-Service-Timestamp'],
      'x-service-signature': signed.headers['X-Service-Signature'],
      'x-service-event': 'article.sync',
      'x-service-delivery-id': 'shown',
      'user-agent': 'Service/1.0',
      'x-signature': 'other-scheme',
      'x-hub-signature-256': 'sha256=github',
    });
  });

  it('gives the time from receipt to answer, never negative', async () => {
    let at = 1_763_800_000_000;
    const { receiver, seen } = inspecting(() => (at += 7));
    const signed = signDelivery({ token, payload: articleSyncPayload(), timestamp: 1_763_800_000 });
    await receiver.handle(signed, {});
    expect(seen[0]!.receivedAt).toBe(1_763_800_000_007);
    expect(seen[0]!.durationMs).toBeGreaterThan(0);
    expect(seen[0]!.durationMs % 7).toBe(0);

    let backwards = 1_763_800_000_000;
    const { receiver: r2, seen: seen2 } = inspecting(() => (backwards -= 7));
    await r2.handle(signDelivery({ token, payload: articleSyncPayload(), timestamp: 1_763_800_000 }), {});
    expect(seen2[0]!.durationMs).toBe(0);
  });

  it('shows a byte or string body as handed over, and no body for other shapes', async () => {
    const { receiver, seen } = inspecting();
    const signed = signDelivery({ token, payload: articleSyncPayload() });
    const bytes = new TextEncoder().encode(String(signed.body));
    await receiver.handle({ headers: signed.headers, body: bytes });
    await receiver.handle({ headers: signed.headers, body: bytes.buffer });
    await receiver.handle({ headers: signed.headers, body: { parsed: true } as never });
    expect(seen.map((d) => d.body)).toEqual([bytes, undefined, undefined]);
  });

  it('names the event of an accepted delivery, and the code and reason of a refused one', async () => {
    const { receiver, seen } = inspecting();
    const signed = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'named' });
    await receiver.handle(signed, {});
    await receiver.handle({ headers: { ...signed.headers, Authorization: 'Bearer nope' }, body: signed.body });
    expect(seen[0]).toMatchObject({ event: { name: 'article.sync', type: 'article.sync', deliveryId: 'named' } });
    expect(seen[0]).not.toHaveProperty('error');
    expect(seen[1]).not.toHaveProperty('event');
    expect(seen[1]!.error).toEqual({
      code: 'invalid_token',
      reason:
        'the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
    });
    expect(seen[1]!.method).toBe('POST');
  });

  it('still inspects a delivery whose headers cannot be read, with no headers shown', async () => {
    const { receiver, seen } = inspecting();
    const throwing = {
      get() {
        throw new Error('getter broke');
      },
    };
    await receiver.handle({ headers: throwing as never, body: '{}' });
    expect(seen[0]).toMatchObject({ headers: {}, answer: { status: 401 } });
  });

  it('never changes the answer when the inspect hook throws', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => quiet.mockRestore());
    const receiver = createReceiver({
      token,
      inspect: () => {
        throw new Error('inspector bug');
      },
    });
    const signed = signDelivery({ token, payload: articleSyncPayload() });
    expect(await receiver.handle(signed, { 'article.sync': () => ({ publishedUrl: 'https://x/y' }) })).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://x/y' },
    });
  });
});
