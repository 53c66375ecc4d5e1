import { describe, expect, it, vi } from 'vitest';
import { createReceiver, type InspectedDelivery, WebhookError } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_admit_test_token';
const signed = () => signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'admit-1' });

describe('receiver.admit (the head of a request, before its body)', () => {
  it('admits a POST in any case with the right token, and handles its body without checking the token again', async () => {
    const delivery = signed();
    for (const method of ['POST', 'post', 'Post']) {
      const admission = createReceiver({ token }).admit({ method, headers: delivery.headers });
      expect(admission.admitted).toBe(true);
      if (!admission.admitted) return;
      expect(await admission.handle(delivery.body, {})).toEqual({ status: 200, body: { ok: true } });
    }
  });

  it('refuses any other method with 405, reports it to onRejected and inspect, and reads no body', () => {
    const onRejected = vi.fn();
    const seen: InspectedDelivery[] = [];
    const receiver = createReceiver({ token, onRejected, inspect: (d) => void seen.push(d) });
    for (const method of ['GET', 'PUT', undefined, 42]) {
      const admission = receiver.admit({ method: method as string, headers: signed().headers });
      expect(admission).toEqual({
        admitted: false,
        answer: { status: 405, body: { error: 'Method not allowed' } },
        authenticated: false,
      });
    }
    expect(onRejected.mock.calls.map(([e]) => e.reason)).toEqual([
      'GET is not POST',
      'PUT is not POST',
      'undefined is not POST',
      '42 is not POST',
    ]);
    expect(seen.map((d) => [d.method, d.body, d.error?.code])).toEqual([
      ['GET', undefined, 'method_not_allowed'],
      ['PUT', undefined, 'method_not_allowed'],
      [undefined, undefined, 'method_not_allowed'],
      [42, undefined, 'method_not_allowed'],
    ]);
  });

  it('refuses a declared Content-Length over maxBodyBytes with 413, telling whether the sender held a valid token', () => {
    const receiver = createReceiver({ token, maxBodyBytes: 100 });
    const headers = { ...signed().headers, 'content-length': '101' };
    expect(receiver.admit({ method: 'POST', headers })).toEqual({
      admitted: false,
      answer: { status: 413, body: { error: 'Payload too large' } },
      authenticated: true,
    });
    expect(receiver.admit({ method: 'POST', headers: { ...headers, Authorization: 'Bearer wrong' } })).toEqual({
      admitted: false,
      answer: { status: 413, body: { error: 'Payload too large' } },
      authenticated: false,
    });
    expect(receiver.admit({ method: 'POST', headers: { ...headers, 'content-length': '100' } }).admitted).toBe(true);
  });

  it('names the declared size and the limit in the 413 reason', () => {
    const onRejected = vi.fn();
    createReceiver({ token, maxBodyBytes: 100, onRejected }).admit({
      method: 'POST',
      headers: { ...signed().headers, 'content-length': '5000' },
    });
    expect(onRejected.mock.calls[0]![0].reason).toBe('Content-Length 5000 is over maxBodyBytes 100');
  });

  it('refuses a wrong or missing token with 401 before the body', () => {
    const receiver = createReceiver({ token });
    for (const headers of [{ ...signed().headers, Authorization: 'Bearer nope' }, {}]) {
      expect(receiver.admit({ method: 'POST', headers })).toEqual({
        admitted: false,
        answer: { status: 401, body: { error: 'Invalid token' } },
        authenticated: false,
      });
    }
  });

  it('verifies an admitted body into its event, or resolves a refusal as its answer and reports it', async () => {
    const onRejected = vi.fn();
    const receiver = createReceiver({ token, onRejected });
    const delivery = signed();
    const admission = receiver.admit({ method: 'POST', headers: delivery.headers });
    if (!admission.admitted) throw new Error('refused');
    expect(await admission.verify(delivery.body)).toEqual({
      event: expect.objectContaining({ type: 'article.sync', deliveryId: 'admit-1' }),
    });
    expect(await admission.verify(`${delivery.body} `)).toEqual({
      answer: { status: 403, body: { error: 'Invalid signature' } },
    });
    expect(onRejected).toHaveBeenCalledTimes(1);
  });

  it('answers a fault the adapter found while reading with refuse(), reported to onRejected and inspect', () => {
    const onRejected = vi.fn();
    const seen: InspectedDelivery[] = [];
    const receiver = createReceiver({ token, onRejected, inspect: (d) => void seen.push(d) });
    const admission = receiver.admit({ method: 'POST', headers: signed().headers });
    if (!admission.admitted) throw new Error('refused');
    const answer = admission.refuse(new WebhookError('payload_too_large', 'the body passed 100 bytes'));
    expect(answer).toEqual({ status: 413, body: { error: 'Payload too large' } });
    expect(onRejected.mock.calls[0]![0]).toMatchObject({ code: 'payload_too_large' });
    expect(seen[0]).toMatchObject({ method: 'POST', body: undefined, error: { code: 'payload_too_large' } });
    expect(seen[0]!.headers.authorization).toBe('Bearer [redacted]');
  });

  it('gives no body hasher for a timestamp check 3 would refuse', () => {
    const receiver = createReceiver({ token });
    for (const timestamp of ['', 'abc', '12a', ' 1']) {
      const admission = receiver.admit({
        method: 'POST',
        headers: { ...signed().headers, 'X-Service-Timestamp': timestamp },
      });
      if (!admission.admitted) throw new Error('refused');
      expect(admission.bodyHasher?.()).toBeUndefined();
    }
    const { 'X-Service-Timestamp': _gone, ...headers } = signed().headers;
    const admission = receiver.admit({ method: 'POST', headers });
    if (!admission.admitted) throw new Error('refused');
    expect(admission.bodyHasher?.()).toBeUndefined();
  });

  it('refuses with 403 a body whose streamed HMAC does not match, and accepts one whose does', async () => {
    const receiver = createReceiver({ token });
    const delivery = signed();
    const body = new TextEncoder().encode(String(delivery.body));
    const good = receiver.admit({ method: 'POST', headers: delivery.headers });
    if (!good.admitted) throw new Error('refused');
    good.bodyHasher?.()?.update(body);
    expect((await good.handle(body, {})).status).toBe(200);

    // Same length, other bytes fed: the stream's verdict is the one used.
    const fed = Uint8Array.from(body);
    fed[fed.length - 2] = fed[fed.length - 2]! ^ 1;
    const bad = receiver.admit({
      method: 'POST',
      headers: { ...delivery.headers, 'X-Service-Delivery-Id': 'admit-2' },
    });
    if (!bad.admitted) throw new Error('refused');
    const hasher = bad.bodyHasher?.();
    if (!hasher) return; // a provider that cannot stream
    hasher.update(fed);
    expect(await bad.handle(body, {})).toEqual({ status: 403, body: { error: 'Invalid signature' } });
  });
});

describe('receiver.admit with odd heads', () => {
  it('refuses a missing head with 405 rather than throwing', () => {
    const receiver = createReceiver({ token, logger: false });
    for (const head of [undefined, null, {}]) {
      expect(receiver.admit(head as never)).toEqual({
        admitted: false,
        answer: { status: 405, body: { error: 'Method not allowed' } },
        authenticated: false,
      });
    }
  });

  it('says an over-limit request without the token is not authenticated: false, not merely falsy', () => {
    const { headers } = signDelivery({ token: 'someone-else', payload: articleSyncPayload() });
    const admission = createReceiver({ token, logger: false, maxBodyBytes: 10 }).admit({
      method: 'POST',
      headers: { ...headers, 'Content-Length': '11' },
    });
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.authenticated).toBe(false);
    expect(admission.answer.status).toBe(413);
  });

  it('gives no body hasher for a timestamp check 3 refuses: such a body is not worth hashing', () => {
    const receiver = createReceiver({ token });
    for (const timestamp of [undefined, '', '12a', ' 1700000000', '1e9']) {
      const { 'X-Service-Timestamp': _t, ...headers } = signed().headers as Record<string, string>;
      const admission = receiver.admit({
        method: 'POST',
        headers: timestamp === undefined ? headers : { ...headers, 'X-Service-Timestamp': timestamp },
      });
      if (!admission.admitted) throw new Error('expected the head to be admitted');
      expect(admission.bodyHasher?.()).toBeUndefined();
    }
  });
});

describe('a streamed body that is not UTF-8', () => {
  it('is refused as not UTF-8 when the stream decoded it, as when the core does', async () => {
    const { createHmac } = await import('node:crypto');
    const timestamp = Math.floor(Date.now() / 1000);
    const body = Buffer.concat([
      Buffer.from(`{"event":"test","timestamp":${timestamp},"article":null,"profile":null,"pad":"`),
      Buffer.alloc(80 * 1024, 0x61),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const headers = {
      authorization: `Bearer ${token}`,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': `sha256=${createHmac('sha256', token).update(`${timestamp}.`).update(body).digest('hex')}`,
      'x-service-event': 'test',
    };
    const onRejected = vi.fn();
    const admission = createReceiver({ token, onRejected }).admit({ method: 'POST', headers });
    if (!admission.admitted) throw new Error('expected the head to be admitted');
    const hasher = admission.bodyHasher?.();
    expect(hasher).toBeDefined();
    for (let offset = 0; offset < body.length; offset += 16 * 1024)
      hasher!.update(body.subarray(offset, offset + 16 * 1024));
    expect(await admission.handle(body, {})).toEqual({ status: 400, body: { error: 'Invalid payload' } });
    expect(onRejected.mock.calls[0]![1].reason).toBe('the body is not valid UTF-8');
  });
});

describe('a rotation window refuses on the head what it would not keep', () => {
  it('refuses a declared size that is no number, unread, as it refuses 0 and too many bytes', async () => {
    const unknown = signDelivery({ token: 'whk_admit_unknown_token', payload: articleSyncPayload() });
    const size = unknown.body.length;
    const receiver = createReceiver({
      token: ['whk_admit_old_token'],
      rotatingUntil: new Date(Date.now() + 3_600_000),
      maxKeptBytes: size * 4,
      logger: false,
    });
    const handle = webhookHandler(receiver, {});
    // A Fetch request may carry any Content-Length a caller set; undici keeps it as given.
    const post = async (declared: string) => {
      const request = new Request('http://localhost/webhook', {
        method: 'POST',
        headers: { ...unknown.headers, 'Content-Length': declared },
        body: unknown.body,
      });
      const response = await handle(request);
      return { declared, status: response.status, read: request.bodyUsed };
    };
    // The window's code loads on its first request, which is read on while it does.
    await post(String(size));
    for (const declared of ['0', 'abc', '-5', String(size * 4 + 1)])
      expect(await post(declared)).toEqual({ declared, status: 503, read: false });
    // A size that can be kept is read, to be kept.
    expect(await post(String(size))).toMatchObject({ status: 503, read: true });
    // The bound itself is a size that can be kept.
    expect(await post(String(size * 4))).toMatchObject({ status: 503, read: true });
  });
});
