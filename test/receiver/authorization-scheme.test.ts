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

describe('a non-ASCII token (compared as UTF-8 bytes)', () => {
  const unicode = 'whk_tökén_ümlaut_€';

  it('accepts the non-ASCII token it was configured with', async () => {
    expect(await answerTo(`Bearer ${unicode}`, unicode)).toEqual({ status: 200, body: { ok: true } });
  });

  it('refuses the Latin-1 spelling of the token’s UTF-8 bytes (each byte as one character)', async () => {
    const latin1 = String.fromCharCode(...new TextEncoder().encode(unicode));
    expect(await answerTo(`Bearer ${latin1}`, unicode)).toEqual(refused);
  });

  it('refuses an ASCII token against a configured non-ASCII one of the same UTF-8 length, and the reverse', async () => {
    expect(await answerTo('Bearer whk_ab', 'whk_é')).toEqual(refused);
    expect(await answerTo('Bearer whk_é', 'whk_ab')).toEqual(refused);
  });

  it('finds a non-ASCII token among several configured tokens, whichever position it is in', async () => {
    const tokens = ['whk_first_token', unicode, 'whk_ãnother'];
    for (const configured of tokens) {
      const signed = delivery(configured);
      const event = await createReceiver({ token: tokens }).verify({
        headers: { ...signed.headers, Authorization: `Bearer ${configured}` },
        body: signed.body,
      });
      expect(event.tokenIndex).toBe(tokens.indexOf(configured));
    }
  });
});
