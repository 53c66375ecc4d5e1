import { afterAll, describe, expect, it } from 'vitest';
import {
  articleSyncPayload,
  type BodyTransformation,
  type Diagnosis,
  type DiagnoseOptions,
  diagnoseDelivery,
  signature,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';
import { vectors } from '../helpers/vectors.js';

const token = 'whk_diagnose_3b9d27f0c4a1e8';
const other = 'whk_other_profile_77aa01c2d9';
const timestamp = 1_763_800_000;
const now = timestamp * 1000 + 1500;
const encoder = new TextEncoder();
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Every diagnosis made here, scanned at the end for the tokens and anything shaped like an HMAC. */
const outputs: string[] = [];
async function diagnose(
  options: Omit<DiagnoseOptions, 'token' | 'now'> & Partial<DiagnoseOptions>,
): Promise<Diagnosis> {
  const diagnosis = await diagnoseDelivery({ token, now, ...options });
  outputs.push(JSON.stringify(diagnosis));
  return diagnosis;
}
afterAll(() => {
  expect(outputs.length).toBeGreaterThan(30);
  for (const output of outputs) {
    for (const secret of [token, other, 'whk_9f8e7d6c5b4a39281706f5e4d3c2b1a0']) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/[0-9a-f]{40,}/i);
    expect(output).not.toMatch(/[A-Za-z0-9+/]{43}=/);
  }
});

/** A delivery signed over `signed`, arriving with `received` as its body. */
function changed(signed: string | Uint8Array, received: string | Uint8Array) {
  const { headers } = signDelivery({ token, payload: signed, timestamp });
  return { headers, body: received };
}

const sync = JSON.stringify(articleSyncPayload({ timestamp }));
const pretty2 = JSON.stringify(JSON.parse(sync), null, 2);
const pretty4 = JSON.stringify(JSON.parse(sync), null, 4);
const bom = '\uFEFF';
const python = vectors.find((vector) => vector.name === 'multi-byte UTF-8 content')!;
const pythonText = new TextDecoder().decode(python.body);
const latin1Safe = JSON.stringify(articleSyncPayload({ timestamp, article: { title: 'Référencement à la carte' } }));

const CASES: [BodyTransformation, string, ReturnType<typeof changed>, RegExp][] = [
  ['json-pretty-printed', 'a compact body pretty-printed', changed(sync, pretty2), /re-serialized as indented JSON/],
  ['json-compacted', 'a 2-space body compacted', changed(pretty2, sync), /indented with 2 spaces/],
  ['json-compacted', 'a 4-space body compacted', changed(pretty4, sync), /indented with 4 spaces/],
  [
    'json-re-stringified',
    "the service's own bytes (a Python json.dumps vector) parsed and re-stringified",
    changed(pythonText, JSON.stringify(JSON.parse(pythonText))),
    /Python's json\.dumps default.*but the bytes verified are compact JSON \(JSON\.stringify\)/,
  ],
  ['bom-added', 'a BOM added', changed(sync, bom + sync), /byte-order mark .* put in front/],
  ['bom-removed', 'a BOM removed by a text decoder', changed(bom + sync, sync), /stripped before verify/],
  ['base64-encoded', 'a body left base64-encoded', changed(sync, base64(sync)), /still base64-encoded/],
  ['base64-decoded', 'a base64 body decoded', changed(base64(sync), sync), /signed bytes were base64 text/],
  ['lf-to-crlf', 'LF turned into CRLF', changed(pretty2, pretty2.replaceAll('\n', '\r\n')), /from LF to CRLF/],
  [
    'crlf-to-lf',
    'CRLF turned into LF',
    changed(pretty2.replaceAll('\n', '\r\n'), pretty2),
    /CRLF line endings .* to LF/,
  ],
  ['trailing-newline-added', 'a final newline added', changed(sync, `${sync}\n`), /newline was added/],
  [
    'trailing-newline-removed',
    'a final newline trimmed',
    changed(`${pretty2}\n`, pretty2),
    /final newline was removed/,
  ],
  [
    'latin1-mojibake',
    'UTF-8 read as Latin-1 and written back as UTF-8',
    changed(sync, Buffer.from(Buffer.from(sync).toString('latin1'), 'utf8')),
    /decoded as Latin-1 \(ISO-8859-1\) and encoded again as UTF-8/,
  ],
  [
    'latin1-mojibake',
    'UTF-8 read as Windows-1252 (as browsers do) and written back',
    // "—" is E2 80 94: Windows-1252 reads 80 as "€" and 94 as "”" (Node's TextDecoder reads them as Latin-1).
    changed(sync, Buffer.from(sync).toString('latin1').replaceAll('\u0080', '€').replaceAll('\u0094', '”')),
    /decoded as Windows-1252/,
  ],
  [
    'latin1-encoded',
    'the text re-encoded as Latin-1',
    changed(latin1Safe, new Uint8Array(Buffer.from(latin1Safe, 'latin1'))),
    /encoded again as Latin-1/,
  ],
];

describe('diagnoseDelivery() names the transformation a body went through after signing', () => {
  it.each(CASES)('%s: %s', async (transformation, _what, delivery, message) => {
    const diagnosis = await diagnose(delivery);
    expect(diagnosis.ok).toBe(false);
    expect(diagnosis.verdict).toMatchObject({ status: 403, code: 'invalid_signature', error: 'Invalid signature' });
    expect(diagnosis.cause).toMatchObject({ kind: 'body-transformed', transformation });
    expect(diagnosis.cause!.message).toMatch(message);
    expect(diagnosis.cause!.fix.length).toBeGreaterThan(20);
    expect(diagnosis.checks.find((check) => check.name === 'signature')).toMatchObject({
      outcome: 'fail',
      detail: `made with your token over other bytes: ${transformation}`,
    });
    expect(diagnosis.checks.find((check) => check.name === 'token')!.outcome).toBe('pass');
  });

  it('accepts the untouched delivery: every check passes', async () => {
    const diagnosis = await diagnose(changed(sync, sync));
    expect(diagnosis).toEqual({
      ok: true,
      verdict: { status: 200, code: null, error: null, reason: null },
      checks: [
        { name: 'body size', outcome: 'pass', detail: `${encoder.encode(sync).length} bytes (limit 10485760)` },
        { name: 'token', outcome: 'pass', detail: 'Bearer the configured token' },
        { name: 'timestamp format', outcome: 'pass', detail: 'Unix seconds in ASCII digits' },
        { name: 'timestamp window', outcome: 'pass', detail: '1 s behind now (accepted under 300 s)' },
        expect.objectContaining({ name: 'signature', outcome: 'pass' }),
        { name: 'payload', outcome: 'pass', detail: 'a valid article.sync envelope' },
        { name: 'delivery id', outcome: 'pass', detail: 'present' },
      ],
    });
  });

  it('says when nothing explains the bytes and the token is right: signed with another secret', async () => {
    const { headers, body } = signDelivery({ token, payload: sync, timestamp });
    headers['X-Service-Signature'] = `sha256=${signature('some-other-secret', String(timestamp), body)}`;
    const diagnosis = await diagnose({ headers, body });
    expect(diagnosis.cause).toMatchObject({ kind: 'signature-other-secret' });
    expect(diagnosis.cause!.message).toMatch(/The Bearer token is yours, but the signature was not made with it/);
  });

  it('names an empty body and "[object Object]" as a body lost to a parser', async () => {
    for (const body of ['', '[object Object]']) {
      const diagnosis = await diagnose(changed(sync, body));
      expect(diagnosis.cause).toMatchObject({ kind: 'body-lost' });
    }
  });
});

describe('diagnoseDelivery() tells token problems apart', () => {
  it('a token from another configuration: consistent with itself, not yours (401)', async () => {
    const diagnosis = await diagnose(signDelivery({ token: other, payload: testPayload({ timestamp }), timestamp }));
    expect(diagnosis.verdict).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(diagnosis.cause).toMatchObject({ kind: 'token-other-configuration' });
    expect(diagnosis.cause!.message).toContain('signed with the very token it carries');
    expect(diagnosis.cause!.message).toContain('regenerated');
    expect(diagnosis.cause!.message).toContain(`It is ${other.length} characters long; yours is ${token.length}.`);
    expect(diagnosis.cause!.fix).toContain('token: [newToken, oldToken]');
  });

  it('a wrong token: the Bearer value is not yours and the signature matches neither', async () => {
    const delivery = signDelivery({ token: 'a-third-token', payload: sync, timestamp });
    delivery.headers.Authorization = `Bearer ${token.slice(0, -1)}`;
    const diagnosis = await diagnose(delivery);
    expect(diagnosis.verdict.status).toBe(401);
    expect(diagnosis.cause).toMatchObject({ kind: 'token-mismatch' });
    expect(diagnosis.cause!.message).toContain(`your first ${token.length - 1} of ${token.length} characters`);
  });

  it('the right signature with another Bearer token: Authorization was replaced on the way', async () => {
    const delivery = signDelivery({ token, payload: sync, timestamp });
    delivery.headers.Authorization = 'Bearer gateway-credential-123';
    expect((await diagnose(delivery)).cause).toMatchObject({ kind: 'authorization-replaced' });
  });

  it('a configured token with a trailing newline or quotes', async () => {
    const delivery = signDelivery({ token, payload: sync, timestamp });
    for (const stored of [`${token}\n`, `"${token}"`]) {
      const diagnosis = await diagnose({ ...delivery, token: stored });
      expect(diagnosis.cause).toMatchObject({ kind: 'token-whitespace' });
      expect(outputs.at(-1)).not.toContain(token);
    }
  });

  it('a missing header, another scheme and a repeated header', async () => {
    const { headers, body } = signDelivery({ token, payload: sync, timestamp });
    const { Authorization: _dropped, ...without } = headers;
    expect((await diagnose({ headers: without, body })).cause?.kind).toBe('token-missing');
    const basic = { ...headers, Authorization: 'Basic dXNlcjpwYXNz' };
    expect((await diagnose({ headers: basic, body })).cause?.kind).toBe('token-scheme');
    const twice = { ...headers, Authorization: [headers.Authorization!, 'Bearer proxy-added'] };
    expect((await diagnose({ headers: twice, body })).cause?.kind).toBe('token-repeated');
  });

  it('accepts an older token during rotation', async () => {
    const diagnosis = await diagnose({
      ...signDelivery({ token: other, payload: sync, timestamp }),
      token: [token, other],
    });
    expect(diagnosis.ok).toBe(true);
    expect(diagnosis.checks[1]!.detail).toBe('Bearer configured token 2 (an older one, rotation)');
  });

  it('skips the token check of a capture that redacted it, and still names the body change', async () => {
    const { headers, body } = changed(sync, `${sync}\n`);
    const diagnosis = await diagnose({ headers: { ...headers, Authorization: 'Bearer [redacted]' }, body });
    expect(diagnosis.checks[1]).toMatchObject({ name: 'token', outcome: 'skip' });
    expect(diagnosis.cause).toMatchObject({ kind: 'body-transformed', transformation: 'trailing-newline-added' });
  });
});

describe('diagnoseDelivery() on timestamps', () => {
  it('gives the clock offset in seconds: 400 s behind, and 400 s ahead', async () => {
    const stale = await diagnose(signDelivery({ token, payload: sync, timestamp: timestamp - 400 }));
    expect(stale.verdict).toMatchObject({ status: 403, code: 'request_expired' });
    expect(stale.cause).toMatchObject({ kind: 'clock-offset', offsetSeconds: 401 });
    expect(stale.cause!.message).toBe(
      "X-Service-Timestamp is 401 s behind this machine's clock; the receiver accepts under 300 s.",
    );
    expect(stale.cause!.fix).toContain('NTP');
    const ahead = await diagnose(signDelivery({ token, payload: sync, timestamp: timestamp + 400 }));
    expect(ahead.cause).toMatchObject({ kind: 'clock-offset', offsetSeconds: -399 });
    expect(ahead.cause!.message).toContain('399 s ahead of');
  });

  it('points at a time zone for a whole number of hours, and at milliseconds for Date.now()', async () => {
    const zone = await diagnose(signDelivery({ token, payload: sync, timestamp: timestamp - 7200 }));
    expect(zone.cause!.message).toContain('about 2 h: a clock set to local time');
    const millis = await diagnose(signDelivery({ token, payload: sync, timestamp: timestamp * 1000 }));
    expect(millis.cause).toMatchObject({ kind: 'timestamp-milliseconds' });
  });

  it('names a malformed timestamp, and a header changed after signing', async () => {
    const iso = await diagnose(signDelivery({ token, payload: sync, timestamp: '2025-11-22T08:26:40Z' }));
    expect(iso.cause).toMatchObject({ kind: 'timestamp-format', message: expect.stringContaining('is a date') });
    const replayed = signDelivery({ token, payload: sync, timestamp });
    replayed.headers['X-Service-Timestamp'] = String(timestamp + 60);
    const diagnosis = await diagnose({ ...replayed, now: (timestamp + 61) * 1000 });
    expect(diagnosis.cause).toMatchObject({ kind: 'timestamp-changed', offsetSeconds: 60 });
  });
});

describe('diagnoseDelivery() on the signature header', () => {
  const signed = signDelivery({ token, payload: sync, timestamp });
  const hex = signed.headers['X-Service-Signature']!.slice('sha256='.length);
  const { 'X-Service-Signature': _removed, ...unsigned } = signed.headers;

  it.each([
    ['X-Hub-Signature-256', `sha256=${hex}`],
    ['X-Signature', hex],
  ])('finds a valid signature sent in %s', async (name, value) => {
    const diagnosis = await diagnose({ headers: { ...unsigned, [name]: value }, body: signed.body });
    expect(diagnosis.cause).toMatchObject({ kind: 'signature-header', header: name.toLowerCase() });
    expect(diagnosis.cause!.message).toContain('only the header name is wrong');
  });

  it.each([
    ['without sha256=', hex, 'is 64 hex digits without the sha256= prefix'],
    ['as base64', `sha256=${Buffer.from(hex, 'hex').toString('base64')}`, 'is base64 instead of 64 hex digits'],
    ['with an upper-case prefix', `SHA256=${hex}`, 'has its prefix in another case'],
    ['truncated', `sha256=${hex.slice(0, 40)}`, 'has 40 hex digits after sha256='],
  ])('names a signature %s', async (_what, value, detail) => {
    const diagnosis = await diagnose({ headers: { ...unsigned, 'X-Service-Signature': value }, body: signed.body });
    expect(diagnosis.cause).toMatchObject({ kind: 'signature-format' });
    expect(diagnosis.cause!.message).toContain(detail);
  });

  it('says so when there is no signature at all', async () => {
    expect((await diagnose({ headers: unsigned, body: signed.body })).cause?.kind).toBe('signature-missing');
  });
});

describe('diagnoseDelivery() on the rest', () => {
  it('reports an invalid envelope and a missing delivery id from the receiver itself', async () => {
    const invalid = await diagnose(signDelivery({ token, payload: '{"event": "article.sync"}', timestamp }));
    expect(invalid.cause).toMatchObject({ kind: 'payload-invalid', message: expect.stringContaining('timestamp') });
    const noId = await diagnose(signDelivery({ token, payload: sync, timestamp, deliveryId: null }));
    expect(noId.cause).toMatchObject({ kind: 'delivery-id-missing' });
  });

  it('checks the payload even when the signature fails, and skips what a capture without body cannot tell', async () => {
    const diagnosis = await diagnose(changed(sync, `${sync}\n`));
    expect(diagnosis.checks.find((check) => check.name === 'payload')!.outcome).toBe('pass');
    const headersOnly = await diagnose({ headers: signDelivery({ token, payload: sync, timestamp }).headers });
    expect(headersOnly.ok).toBe(false);
    expect(headersOnly.verdict.status).toBeNull();
    expect(headersOnly.checks.map((check) => check.outcome)).toEqual([
      'skip',
      'pass',
      'pass',
      'pass',
      'skip',
      'skip',
      'skip',
    ]);
  });

  it('agrees with the receiver on every vector of the independent implementation', async () => {
    for (const vector of vectors) {
      const diagnosis = await diagnose({
        headers: vector.headers,
        body: vector.body,
        token: vector.tokens,
        now: vector.now * 1000,
      });
      expect([vector.name, diagnosis.verdict.status]).toEqual([vector.name, vector.expect.status]);
      expect(diagnosis.ok).toBe(vector.expect.status === 200);
      if (!diagnosis.ok) expect(diagnosis.cause?.kind).not.toBe('unknown');
    }
  });
});
