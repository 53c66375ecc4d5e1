import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// The edges of "a token the service could have issued" (1 to 512 printable ASCII characters),
// which alone turns a 401 into 503 Token rotation in progress while a window is armed, and
// admission with a token source that has not been read yet.

const TOKEN = 'rotation-edges-token-0123456789';

/** The status an armed receiver answers for a delivery carrying `authorization`. */
async function statusFor(authorization: string): Promise<number> {
  const receiver = createReceiver({ token: TOKEN, rotatingUntil: Date.now() + 3_600_000, logger: false });
  const signed = signDelivery({ token: TOKEN, payload: testPayload() });
  const answer = await receiver.handle({ ...signed, headers: { ...signed.headers, Authorization: authorization } });
  return answer.status;
}

describe('the rotation window answers 503 only for a token the service could have issued', () => {
  it('1 and 512 characters are plausible; 513 and none are not', async () => {
    expect(await statusFor('Bearer x')).toBe(503);
    expect(await statusFor(`Bearer ${'x'.repeat(512)}`)).toBe(503);
    expect(await statusFor(`Bearer ${'x'.repeat(513)}`)).toBe(401);
    expect(await statusFor('Bearer ')).toBe(401);
  });

  it('every printable ASCII character is plausible, "!" and "~" included', async () => {
    expect(await statusFor('Bearer !token!')).toBe(503);
    expect(await statusFor('Bearer ~token~')).toBe(503);
  });

  it('a space, a control character or a character past "~" inside the token is not', async () => {
    expect(await statusFor('Bearer two words')).toBe(401);
    expect(await statusFor('Bearer tab\there')).toBe(401);
    expect(await statusFor('Bearer del\u007f')).toBe(401);
    expect(await statusFor('Bearer caf\u00e9')).toBe(401);
  });
});

describe('admission with a token source not read yet', () => {
  it('gives no body hasher (no token is known), then verifies once the body is read', async () => {
    const receiver = createReceiver({ token: async () => TOKEN, logger: false });
    const { headers, body } = signDelivery({ token: TOKEN, payload: testPayload() });
    const admission = receiver.admit({ method: 'POST', headers });
    if (!admission.admitted) throw new Error('refused on its head');
    expect(admission.bodyHasher?.()).toBeUndefined();
    expect(await admission.handle(body, { test: () => {} })).toEqual({ status: 200, body: { ok: true } });
  });
});
