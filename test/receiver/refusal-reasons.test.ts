import { describe, expect, it } from 'vitest';
import { createReceiver, WebhookError } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_refusal_reasons_token';
const NOW = 1_763_800_000;
const receiver = (options: { maxBodyBytes?: number } = {}) =>
  createReceiver({ token, now: () => NOW * 1000, ...options });
const signed = (payload: object | string = testPayload({ timestamp: NOW }), extra: Record<string, string> = {}) => {
  const delivery = signDelivery({ token, payload, timestamp: NOW, deliveryId: 'reasons' });
  return { headers: { ...delivery.headers, ...extra }, body: delivery.body };
};

/** The refusal's code and reason (what onRejected and logs see), or 'accepted'. */
async function reasonOf(input: { headers: unknown; body: unknown }, options?: { maxBodyBytes?: number }) {
  return receiver(options)
    .verify(input as never)
    .then(
      () => 'accepted',
      (error: unknown) => {
        expect(error).toBeInstanceOf(WebhookError);
        return `${(error as WebhookError).code}: ${(error as WebhookError).reason}`;
      },
    );
}

const withoutHeader = (name: string) => {
  const { headers, body } = signed();
  const { [name]: _gone, ...rest } = headers;
  return { headers: rest, body };
};

describe('the reason given for each refusal (for onRejected and the logs)', () => {
  it('names a missing Authorization, one that is not Bearer, and a token that matches none', async () => {
    expect(await reasonOf(withoutHeader('Authorization'))).toBe('invalid_token: Authorization header is missing');
    expect(await reasonOf(signed(undefined, { Authorization: '' }))).toBe(
      'invalid_token: Authorization header is missing',
    );
    expect(await reasonOf(signed(undefined, { Authorization: `Basic ${token}` }))).toBe(
      'invalid_token: Authorization is not "Bearer <token>"',
    );
    expect(await reasonOf(signed(undefined, { Authorization: 'Bearer other' }))).toBe(
      'invalid_token: the Bearer token matches none of the configured tokens; was it regenerated in Profile Settings → CMS Integration?',
    );
  });

  it('names a missing timestamp, and one that is not digits', async () => {
    expect(await reasonOf(withoutHeader('X-Service-Timestamp'))).toBe(
      'invalid_timestamp: X-Service-Timestamp is missing',
    );
    expect(await reasonOf(signed(undefined, { 'X-Service-Timestamp': '17638e5' }))).toBe(
      'invalid_timestamp: X-Service-Timestamp is not Unix seconds in ASCII digits',
    );
  });

  it('says how old or how far in the future a timestamp is, and the tolerance', async () => {
    const at = (timestamp: number) => signDelivery({ token, payload: testPayload({ timestamp }), timestamp });
    expect(await reasonOf(at(NOW - 400))).toBe(
      "request_expired: X-Service-Timestamp is 400 s old; tolerance is 300 s (check this server's clock if this repeats)",
    );
    expect(await reasonOf(at(NOW + 301))).toBe(
      "request_expired: X-Service-Timestamp is 301 s in the future; tolerance is 300 s (check this server's clock if this repeats)",
    );
  });

  it('names a missing signature, a malformed one, and one that does not match', async () => {
    expect(await reasonOf(withoutHeader('X-Service-Signature'))).toBe(
      'invalid_signature: X-Service-Signature is missing',
    );
    const { headers, body } = signed();
    const hex = headers['X-Service-Signature']!.slice(7);
    for (const malformed of [hex, `sha256:${hex}`, `SHA256=${hex}`, `sha256=${hex.slice(1)}`]) {
      expect(await reasonOf({ headers: { ...headers, 'X-Service-Signature': malformed }, body })).toBe(
        'invalid_signature: X-Service-Signature is not "sha256=" followed by 64 hex digits',
      );
    }
    expect(await reasonOf({ headers, body: `${body} ` })).toBe(
      'invalid_signature: X-Service-Signature does not match: the body was changed before verify (re-serialised, decoded or trimmed), or it was signed with another token.',
    );
  });

  it('names a body that is not UTF-8, not JSON, not an object, or lacks event or timestamp', async () => {
    expect(await reasonOf(signed(Uint8Array.of(0x7b, 0xff, 0x7d) as never))).toBe(
      'invalid_payload: the body is not valid UTF-8',
    );
    expect(await reasonOf(signed('{"event":'))).toBe('invalid_payload: the body is not valid JSON');
    expect(await reasonOf(signed('[]'))).toBe('invalid_payload: the body is not a JSON object');
    expect(await reasonOf(signed({ timestamp: NOW }))).toBe('invalid_payload: event is missing or not a string');
    expect(await reasonOf(signed({ event: 7, timestamp: NOW }))).toBe(
      'invalid_payload: event is missing or not a string',
    );
    expect(await reasonOf(signed({ event: 'test' }))).toBe('invalid_payload: timestamp is missing or not an integer');
    expect(await reasonOf(signed({ event: 'test', timestamp: 2 ** 53 }))).toBe(
      'invalid_payload: timestamp is missing or not an integer',
    );
  });

  it('refuses a test event with an article or a profile, and accepts one where both are absent or null', async () => {
    for (const extra of [{ article: {} }, { profile: {} }, { article: 0, profile: null }]) {
      expect(await reasonOf(signed({ event: 'test', timestamp: NOW, ...extra }))).toBe(
        'invalid_payload: test events carry null article and profile',
      );
    }
    expect(await reasonOf(signed({ event: 'test', timestamp: NOW }))).toBe('accepted');
    expect(await reasonOf(signed({ event: 'test', timestamp: NOW, article: null, profile: null }))).toBe('accepted');
  });

  it('reads no delivery header from a polluted Object.prototype, on lower-case header objects too', async () => {
    const { headers, body } = signed();
    const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    const outcome = (input: { headers: unknown; body: unknown }) =>
      receiver()
        .verify(input as never)
        .then(
          (event) => `accepted as ${event.deliveryId}`,
          (error: WebhookError) => `${error.code}: ${error.reason}`,
        );
    expect(await outcome({ headers: lower, body })).toBe('accepted as reasons');
    for (const name of ['authorization', 'x-service-timestamp', 'x-service-signature', 'x-service-delivery-id']) {
      const { [name]: value, ...rest } = lower;
      const unpolluted = await outcome({ headers: rest, body });
      Object.defineProperty(Object.prototype, name, { value, configurable: true, writable: true });
      try {
        expect(await outcome({ headers: rest, body }), name).toBe(unpolluted);
        expect(await outcome({ headers: lower, body }), name).toBe('accepted as reasons');
      } finally {
        delete (Object.prototype as Record<string, unknown>)[name];
      }
    }
  });

  it('treats an event named like an Object.prototype member as unknown, not as an article event', async () => {
    for (const event of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      const verified = await receiver().verify(signed({ event, timestamp: NOW }));
      expect(verified).toMatchObject({ type: 'unknown', name: event });
    }
  });

  it('names a missing delivery id for article events, after the payload', async () => {
    const delivery = signDelivery({
      token,
      payload: articleSyncPayload({ timestamp: NOW }),
      timestamp: NOW,
      deliveryId: null,
    });
    expect(await reasonOf(delivery)).toBe(
      'missing_delivery_id: article.sync needs X-Service-Delivery-Id to be deduplicated',
    );
    expect(await reasonOf({ ...delivery, headers: { ...delivery.headers, 'X-Service-Delivery-Id': '' } })).toBe(
      'missing_delivery_id: article.sync needs X-Service-Delivery-Id to be deduplicated',
    );
  });

  it('refuses a delivery id given twice for test and unknown events too, not only for article events', async () => {
    for (const payload of [testPayload({ timestamp: NOW }), { event: 'job.done', timestamp: NOW }]) {
      const delivery = signDelivery({ token, payload, timestamp: NOW, deliveryId: 'one, two' });
      expect(await reasonOf(delivery)).toBe(
        'invalid_delivery_id: X-Service-Delivery-Id arrived more than once (or holds a comma); the service sends exactly one UUID',
      );
    }
  });

  it('names a body over maxBodyBytes by its size, for bytes and for strings', async () => {
    const { headers } = signed();
    expect(await reasonOf({ headers, body: new Uint8Array(11) }, { maxBodyBytes: 10 })).toBe(
      'payload_too_large: the body has at least 11 bytes; maxBodyBytes is 10',
    );
    expect(await reasonOf({ headers, body: 'x'.repeat(12) }, { maxBodyBytes: 10 })).toBe(
      'payload_too_large: the body has at least 12 bytes; maxBodyBytes is 10',
    );
    // Six characters, twelve UTF-8 bytes: measured once encoded.
    expect(await reasonOf({ headers, body: 'éééééé' }, { maxBodyBytes: 10 })).toBe(
      'payload_too_large: the body has at least 12 bytes; maxBodyBytes is 10',
    );
  });

  it('takes an ArrayBuffer and any typed-array view as the raw bytes, only the viewed part', async () => {
    const { headers, body } = signed();
    const bytes = new TextEncoder().encode(String(body));
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    expect(await reasonOf({ headers, body: bytes.buffer })).toBe('accepted');
    expect(await reasonOf({ headers, body: new DataView(padded.buffer, 4, bytes.length) })).toBe('accepted');
    expect(await reasonOf({ headers, body: padded.subarray(4, 4 + bytes.length) })).toBe('accepted');
  });
});
