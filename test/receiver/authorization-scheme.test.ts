import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

const token = 'whk_scheme_test_token';
const delivery = (tokenToSign = token) =>
  signDelivery({ token: tokenToSign, payload: testPayload(), deliveryId: null });

/** Handles a delivery signed with `signedWith`, sent with the Authorization header `authorization`. */
async function answerTo(authorization: string, signedWith = token, configured: string | string[] = signedWith) {
  const signed = delivery(signedWith);
  return createReceiver({ token: configured }).handle({
    headers: { ...signed.headers, Authorization: authorization },
    body: signed.body,
  });
}

const refused = { status: 401, body: { error: 'Invalid token' } };

describe('the Authorization scheme', () => {
  it('refuses the right token in a six-letter scheme other than Bearer (Digest)', async () => {
    expect(await answerTo(`Digest ${token}`)).toEqual(refused);
    expect(await answerTo(`Bearez ${token}`)).toEqual(refused);
    expect(await answerTo(`Aearer ${token}`)).toEqual(refused);
  });

  it('refuses the right token after a scheme that only starts with Bearer (BearerX)', async () => {
    expect(await answerTo(`BearerX ${token}`)).toEqual(refused);
    expect(await answerTo(`Bearer_ ${token}`)).toEqual(refused);
  });

  it('refuses the right token after a five-letter prefix of Bearer', async () => {
    expect(await answerTo(`Beare ${token}`)).toEqual(refused);
  });

  it('accepts Bearer in any case and skips extra spaces before the token', async () => {
    expect((await answerTo(`bEARER ${token}`)).status).toBe(200);
    expect((await answerTo(`Bearer   ${token}`)).status).toBe(200);
  });

  it('refuses a header that is the token alone, with no scheme', async () => {
    expect(await answerTo(token)).toEqual(refused);
  });
});

describe('several configured tokens', () => {
  it('reports the first of two equal configured tokens as the one that matched', async () => {
    const signed = delivery();
    const event = await createReceiver({ token: [token, token, 'whk_other'] }).verify(signed);
    expect(event.tokenIndex).toBe(0);
    const later = await createReceiver({ token: ['whk_other', token, token] }).verify(signed);
    expect(later.tokenIndex).toBe(1);
  });
});

describe('a non-ASCII token (contract v5: never a configured one)', () => {
  const unicode = 'whk_tökén_ümlaut_€';

  it('is refused at createReceiver, naming the position and code of the character, never the token', () => {
    expect(() => createReceiver({ token: unicode })).toThrow(
      'createReceiver: token has a non-ASCII character (U+00F6) at position 6, character 6 of 18',
    );
    expect(() => createReceiver({ token: ['whk_first_token', unicode] })).toThrow(/createReceiver: token\[1\] has/);
    try {
      createReceiver({ token: unicode });
    } catch (error) {
      expect(String(error)).not.toContain('tökén');
    }
  });

  it('presented against an ASCII token, is refused (401), as is the Latin-1 spelling of its UTF-8 bytes', async () => {
    const latin1 = String.fromCharCode(...new TextEncoder().encode('whk_é'));
    expect(await answerTo('Bearer whk_é', 'whk_ab')).toEqual(refused);
    expect(await answerTo(`Bearer ${latin1}`, 'whk_abc')).toEqual(refused);
  });
});
