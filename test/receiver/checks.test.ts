import { describe, expect, it } from 'vitest';
import { createReceiver, type ReceiverSettings, WebhookError, type WebhookErrorCode } from 'webhook-cms-receiver';
import { articleSyncPayload, signature, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { providers } from '../helpers/providers.js';

const token = 'whk_test_0123456789abcdef';
const NOW = 1_763_800_000;

async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: WebhookErrorCode; message: string }> {
  const error = await promise.then(
    () => expect.fail('expected the delivery to be refused'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookError);
  const { status, code, message } = error as WebhookError;
  return { status, code, message };
}

describe.each(providers)('checks in contract order with %s', (_name, crypto) => {
  const receiver = (options: Partial<ReceiverSettings> & { token?: string | string[] } = {}) =>
    createReceiver({ token, now: () => NOW * 1000, crypto, ...options });
  const signed = (overrides: Partial<Parameters<typeof signDelivery>[0]> = {}) =>
    signDelivery({ token, payload: articleSyncPayload({ timestamp: NOW }), timestamp: NOW, ...overrides });

  describe('timestamp window', () => {
    it.each([
      [-299, 200],
      [299, 200],
      [-300, 403],
      [300, 403],
      [0, 200],
    ])('a timestamp %i s from now answers %i', async (offset, status) => {
      const answer = await receiver().handle(signed({ timestamp: NOW + offset }), {});
      expect(answer.status).toBe(status);
      if (status === 403) expect(answer.body).toEqual({ error: 'Request expired' });
    });

    it('counts now in whole seconds, so 299.999 s old is still inside the window', async () => {
      const delivery = signed({ timestamp: NOW - 299 });
      const answer = await receiver({ now: () => NOW * 1000 + 999 }).handle(delivery, {});
      expect(answer.status).toBe(200);
    });

    it('honours a custom toleranceSeconds', async () => {
      expect((await receiver({ toleranceSeconds: 60 }).handle(signed({ timestamp: NOW - 59 }), {})).status).toBe(200);
      expect((await receiver({ toleranceSeconds: 60 }).handle(signed({ timestamp: NOW - 60 }), {})).status).toBe(403);
    });

    it.each(['', ' 1763800000', '1763800000 ', '-1763800000', '+1763800000', '1.7638e9', '1763800000.0', '０１'])(
      'refuses the timestamp %j as invalid',
      async (timestamp) => {
        const delivery = signed();
        delivery.headers['X-Service-Timestamp'] = timestamp;
        expect(await refusal(receiver().verify(delivery))).toMatchObject({ status: 403, message: 'Invalid timestamp' });
      },
    );

    it('signs over the exact timestamp text, leading zeros included', async () => {
      const event = await receiver().verify(signed({ timestamp: `0${NOW}` }));
      expect(event.type).toBe('article.sync');
    });

    it('treats an absurdly long timestamp as expired, not as a crash', async () => {
      const delivery = signed({ timestamp: '9'.repeat(400) });
      expect(await refusal(receiver().verify(delivery))).toMatchObject({ status: 403, message: 'Request expired' });
    });
  });

  describe('Authorization', () => {
    it.each(['Bearer', 'bearer', 'BEARER', 'BeArEr'])('accepts the scheme written %s', async (scheme) => {
      const delivery = signed();
      delivery.headers.Authorization = `${scheme} ${token}`;
      expect((await receiver().verify(delivery)).type).toBe('article.sync');
    });

    it.each([
      ['a token one character short', `Bearer ${token.slice(0, -1)}`],
      ['a token one character long', `Bearer ${token}x`],
      ['a token differing in the last byte', `Bearer ${token.slice(0, -1)}0`],
      ['the token without a scheme', token],
      ['the scheme without a token', 'Bearer'],
      ['an empty token', 'Bearer '],
      ['Basic instead of Bearer', `Basic ${token}`],
      ['the token twice', `Bearer ${token}, Bearer ${token}`],
      ['a different-case token', `Bearer ${token.toUpperCase()}`],
    ])('refuses %s with 401 before looking at anything else', async (_what, authorization) => {
      const delivery = signed();
      delivery.headers.Authorization = authorization;
      delete delivery.headers['X-Service-Timestamp'];
      expect(await refusal(receiver().verify(delivery))).toMatchObject({
        status: 401,
        code: 'invalid_token',
        message: 'Invalid token',
      });
    });

    it('reports which rotated token matched in tokenIndex and checks the signature with that token', async () => {
      const tokens = ['whk_current', 'whk_previous', 'whk_older'];
      for (const [index, used] of tokens.entries()) {
        const event = await receiver({ token: tokens }).verify(signed({ token: used }));
        expect(event.tokenIndex).toBe(index);
      }
      const crossed = signed({ token: 'whk_previous' });
      crossed.headers.Authorization = 'Bearer whk_current';
      expect(await refusal(receiver({ token: tokens }).verify(crossed))).toMatchObject({
        status: 403,
        message: 'Invalid signature',
      });
    });
  });

  describe('signature', () => {
    it('accepts upper-case hex digits', async () => {
      const delivery = signed();
      delivery.headers['X-Service-Signature'] = delivery.headers['X-Service-Signature']!.replace(
        /[0-9a-f]{64}$/,
        (hex) => hex.toUpperCase(),
      );
      expect((await receiver().verify(delivery)).type).toBe('article.sync');
    });

    it.each([
      ['63 hex digits', (s: string) => s.slice(0, -1)],
      ['65 hex digits', (s: string) => `${s}0`],
      ['a non-hex digit', (s: string) => `${s.slice(0, -1)}g`],
      ['an upper-case prefix', (s: string) => s.replace('sha256=', 'SHA256=')],
      ['a sha1= prefix', (s: string) => s.replace('sha256=', 'sha1=')],
      ['surrounding spaces inside the value', (s: string) => s.replace('sha256=', 'sha256= ')],
      ['the last digit changed', (s: string) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0')],
    ])('refuses a signature with %s', async (_what, change) => {
      const delivery = signed();
      delivery.headers['X-Service-Signature'] = change(delivery.headers['X-Service-Signature']!);
      expect(await refusal(receiver().verify(delivery))).toMatchObject({
        status: 403,
        code: 'invalid_signature',
        message: 'Invalid signature',
      });
    });

    it('refuses a one-byte change anywhere in the body', async () => {
      const delivery = signed();
      const body = new TextEncoder().encode(delivery.body as string);
      for (const position of [0, 1, Math.floor(body.length / 2), body.length - 1]) {
        const changed = body.slice();
        changed[position] = changed[position]! ^ 0x01;
        expect(await refusal(receiver().verify({ headers: delivery.headers, body: changed }))).toMatchObject({
          status: 403,
        });
      }
    });

    it('checks the signature before the payload, so a forged body is 403 not 400', async () => {
      const delivery = signed();
      expect(await refusal(receiver().verify({ headers: delivery.headers, body: 'not json' }))).toMatchObject({
        status: 403,
      });
    });
  });

  describe('body size', () => {
    it('accepts a body of exactly maxBodyBytes and refuses one byte more, before anything else', async () => {
      const payload = JSON.stringify(testPayload({ timestamp: NOW }));
      const exact = createReceiver({ token, now: () => NOW * 1000, crypto, maxBodyBytes: payload.length });
      expect((await exact.verify(signed({ payload }))).type).toBe('test');
      const tight = createReceiver({ token: 'other', now: () => NOW * 1000, crypto, maxBodyBytes: payload.length - 1 });
      expect(await refusal(tight.verify(signed({ payload })))).toMatchObject({
        status: 413,
        message: 'Payload too large',
      });
    });

    it('measures a string body in UTF-8 bytes, not characters', async () => {
      const payload = JSON.stringify(testPayload({ timestamp: NOW, note: 'é'.repeat(10) }));
      const limited = createReceiver({ token, now: () => NOW * 1000, crypto, maxBodyBytes: payload.length + 5 });
      expect(await refusal(limited.verify(signed({ payload })))).toMatchObject({ status: 413 });
    });
  });

  describe('body types', () => {
    const bodies = (text: string): [string, unknown][] => {
      const bytes = new TextEncoder().encode(text);
      const padded = new Uint8Array(bytes.length + 8);
      padded.set(bytes, 4);
      return [
        ['string', text],
        ['Buffer', Buffer.from(text)],
        ['Uint8Array', bytes],
        ['ArrayBuffer', bytes.slice().buffer],
        ['a Uint8Array view into a larger buffer', padded.subarray(4, 4 + bytes.length)],
        ['DataView', new DataView(padded.buffer, 4, bytes.length)],
      ];
    };
    const text = JSON.stringify(articleSyncPayload({ timestamp: NOW, article: { title: 'Référencement 🚀 日本語' } }));
    it.each(bodies(text))('verifies a body given as %s', async (_kind, body) => {
      const { headers } = signed({ payload: text });
      const event = await receiver().verify({ headers, body: body as string });
      expect(event.type === 'article.sync' && event.article.title).toBe('Référencement 🚀 日本語');
    });

    it('refuses a parsed object as a body with 500 Server misconfigured (a fault of the host, so the service retries)', async () => {
      const { headers } = signed();
      const error = await receiver()
        .verify({ headers, body: { event: 'test' } as unknown as string })
        .catch((e: WebhookError) => e);
      expect(error).toMatchObject({ status: 500, code: 'body_already_parsed' });
      expect((error as WebhookError).reason).toMatch(/raw bytes/);
    });

    it.each([
      ['null', null],
      ['a number', 42],
    ])('refuses %s as a body with 400 and a reason naming the fix', async (_kind, body) => {
      const { headers } = signed();
      const error = await receiver()
        .verify({ headers, body: body as unknown as string })
        .catch((e: WebhookError) => e);
      expect(error).toMatchObject({ status: 400, code: 'invalid_payload' });
      expect((error as WebhookError).reason).toMatch(/raw bytes/);
    });
  });

  describe('headers', () => {
    it('reads header names in any case, from a plain object or a Fetch Headers', async () => {
      const delivery = signed();
      const shouty = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toUpperCase(), v]));
      expect((await receiver().verify({ headers: shouty, body: delivery.body })).type).toBe('article.sync');
      expect((await receiver().verify({ headers: new Headers(delivery.headers), body: delivery.body })).type).toBe(
        'article.sync',
      );
    });

    it('takes a single-element array as that value, as Node gives repeated headers', async () => {
      const delivery = signed();
      const arrays = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), [v]]));
      expect((await receiver().verify({ headers: arrays, body: delivery.body })).type).toBe('article.sync');
    });

    it.each(['authorization', 'x-service-timestamp', 'x-service-signature'])(
      'refuses a repeated %s header, as Fetch would join it',
      async (name) => {
        const delivery = signed();
        const lower = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), v]));
        const headers = { ...lower, [name]: [lower[name]!, lower[name]!] };
        const { status } = await refusal(receiver().verify({ headers, body: delivery.body }));
        expect(status).toBe(name === 'authorization' ? 401 : 403);
      },
    );

    it('refuses the same header given twice under different cases', async () => {
      const delivery = signed();
      const headers = { ...delivery.headers, 'x-service-signature': delivery.headers['X-Service-Signature']! };
      expect(await refusal(receiver().verify({ headers, body: delivery.body }))).toMatchObject({ status: 403 });
    });

    it('ignores X-Service-Event: the signed body decides the event', async () => {
      const delivery = signed();
      delivery.headers['X-Service-Event'] = 'article.trash';
      expect((await receiver().verify(delivery)).type).toBe('article.sync');
    });
  });

  describe('payload', () => {
    const verifyBody = (payload: string) => receiver().verify(signed({ payload }));

    it('refuses invalid UTF-8 with 400, even inside a JSON string', async () => {
      const bytes = new TextEncoder().encode(JSON.stringify(testPayload({ timestamp: NOW, note: 'XX' })));
      const at = bytes.indexOf(0x58);
      bytes[at] = 0xc3;
      bytes[at + 1] = 0x28;
      const { headers } = signDelivery({ token, payload: bytes, timestamp: NOW });
      expect(await refusal(receiver().verify({ headers, body: bytes }))).toMatchObject({
        status: 400,
        message: 'Invalid payload',
      });
    });

    it('refuses a byte-order mark before the JSON', async () => {
      expect(await refusal(verifyBody(`\ufeff${JSON.stringify(testPayload({ timestamp: NOW }))}`))).toMatchObject({
        status: 400,
      });
    });

    it.each([
      ['a JSON array', '[]'],
      ['a JSON string', '"test"'],
      ['null', 'null'],
      ['no event', JSON.stringify({ timestamp: NOW, article: null, profile: null })],
      ['a numeric event', JSON.stringify({ event: 1, timestamp: NOW })],
      ['a string timestamp', JSON.stringify({ event: 'test', timestamp: String(NOW), article: null, profile: null })],
      ['a fractional timestamp', JSON.stringify({ event: 'test', timestamp: NOW + 0.5, article: null, profile: null })],
      ['a test event with an article', JSON.stringify({ event: 'test', timestamp: NOW, article: {}, profile: null })],
      [
        'a trash event without profile',
        JSON.stringify({ event: 'article.trash', timestamp: NOW, article: { id: 'a', slug: 'b' } }),
      ],
      [
        'a trash article without slug',
        JSON.stringify({
          event: 'article.trash',
          timestamp: NOW,
          article: { id: 'a' },
          profile: { id: 'p', domain: 'd' },
        }),
      ],
      [
        'a sync article with a numeric title',
        JSON.stringify(articleSyncPayload({ timestamp: NOW, article: { title: 7 as unknown as string } })),
      ],
      [
        'a sync article with a null slug',
        JSON.stringify(articleSyncPayload({ timestamp: NOW, article: { slug: null as unknown as string } })),
      ],
      [
        'sync tags holding a number',
        JSON.stringify(articleSyncPayload({ timestamp: NOW, article: { tags: ['a', 1] as unknown as string[] } })),
      ],
      ['a sync profile as an array', JSON.stringify({ ...articleSyncPayload({ timestamp: NOW }), profile: [] })],
      [
        'an article field only on the prototype',
        `{"event":"article.trash","timestamp":${NOW},"article":{"__proto__":{"id":"a","slug":"b"}},"profile":{"id":"p","domain":"d"}}`,
      ],
    ])('refuses %s with 400 Invalid payload', async (_what, payload) => {
      expect(await refusal(verifyBody(payload))).toMatchObject({
        status: 400,
        code: 'invalid_payload',
        message: 'Invalid payload',
      });
    });

    it('accepts extra fields, a missing test article/profile, null optional article fields and unknown statuses', async () => {
      const sync = articleSyncPayload({
        timestamp: NOW,
        extra: 1,
        article: { status: 'embargoed', featured_image_url: null, published_at: null },
      });
      expect((await verifyBody(JSON.stringify(sync))).payload).toMatchObject({ extra: 1 });
      expect((await verifyBody(JSON.stringify({ event: 'test', timestamp: NOW }))).type).toBe('test');
    });

    it('gives unknown events type "unknown" with the real name, and needs no delivery id for them', async () => {
      const event = await receiver().verify(
        signed({
          payload: JSON.stringify({ event: 'job.completed', timestamp: NOW, job: { id: 1 } }),
          deliveryId: null,
        }),
      );
      expect(event).toMatchObject({
        type: 'unknown',
        name: 'job.completed',
        deliveryId: null,
        payload: { job: { id: 1 } },
      });
    });

    it('needs a delivery id for article events only, checked after the payload', async () => {
      const trash = JSON.stringify({
        event: 'article.trash',
        timestamp: NOW,
        article: { id: 'a', slug: 'b' },
        profile: { id: 'p', domain: 'd' },
      });
      expect((await verifyBody(trash)).type).toBe('article.trash');
      expect(await refusal(receiver().verify(signed({ payload: trash, deliveryId: null })))).toMatchObject({
        status: 400,
        message: 'Missing delivery id',
      });
      expect(await refusal(receiver().verify(signed({ payload: '[]', deliveryId: null })))).toMatchObject({
        message: 'Invalid payload',
      });
      expect(
        (
          await receiver().verify(
            signed({ payload: JSON.stringify(testPayload({ timestamp: NOW })), deliveryId: null }),
          )
        ).deliveryId,
      ).toBeNull();
    });

    it.each([
      ['an array of two ids', (id: string) => [id, 'other-id']],
      ['two equal copies', (id: string) => [id, id]],
      ['a Fetch Headers with the header appended twice', (id: string) => `${id}, ${id}`],
    ])(
      'refuses X-Service-Delivery-Id given twice (%s) with 400 Invalid delivery id, never deduplicating on "a, b"',
      async (_shape, twice) => {
        const { headers, body } = signed({ deliveryId: 'delivery-1' });
        const repeated = { ...headers, 'X-Service-Delivery-Id': twice('delivery-1') };
        const asFetch = new Headers(Object.entries(headers).filter(([name]) => name !== 'X-Service-Delivery-Id'));
        asFetch.append('X-Service-Delivery-Id', 'delivery-1');
        asFetch.append('X-Service-Delivery-Id', 'delivery-1');
        for (const given of [repeated, asFetch]) {
          expect(await refusal(receiver().verify({ headers: given, body }))).toEqual({
            status: 400,
            code: 'invalid_delivery_id',
            message: 'Invalid delivery id',
          });
        }
        const handled = await receiver().handle({ headers: repeated, body }, {});
        expect(handled).toEqual({ status: 400, body: { error: 'Invalid delivery id' } });
      },
    );
  });

  it('signs exactly as the vectors were signed', () => {
    expect(
      signature(
        'whk_9f8e7d6c5b4a39281706f5e4d3c2b1a0',
        '1763800000',
        '{"event": "test", "timestamp": 1763800000, "article": null, "profile": null}',
      ),
    ).toBe('e302e5a8adbf30cc6f99d4068ca652836695effcbdadf22a27d7e3b28cb940e1');
  });
});
